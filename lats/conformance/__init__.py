"""The environment conformance kit: checks any lats.environment.v2.Environment server.

Run it against a live server (any language):

    lats conformance HOST:PORT [--replica HOST2:PORT2]
    pytest -p lats.conformance.plugin --pyargs lats.conformance --env-addr HOST:PORT

The kit knows no domain. It drives the server with Describe's grammar
examples and garbage actions, and relies on every step counting toward
max_steps to reach an ended episode. Options: --env-task-id (a task whose
grammar examples apply in order; default the first task of the default
split), --env-addr-2 (`--replica`: a second replica sharing the snapshot key,
checked to answer identically) and --env-timeout (seconds per call). Checks
that do not apply (blob checks on a server whose snapshots are replays, inline
tasks, a second replica not given) are skipped with the reason. Every rule it
checks is in docs/protocol.md.
"""
