"""The environment conformance kit: checks any lats.v1.Environment server by address.

Run it against a live server (any language):

    lats conformance HOST:PORT
    pytest -p lats.conformance.plugin --pyargs lats.conformance --env-addr HOST:PORT

The kit knows no domain. It drives the server with Describe's grammar
examples and garbage actions, and relies on every step counting toward
max_steps to reach an ended episode. Options: --env-task-id (a task whose
grammar examples apply; default the first task of the default split) and
--env-timeout (seconds per call). Expiry and capacity checks run only when
the server's limits are small enough to test quickly (session_ttl_seconds
<= 5, max_sessions <= 256) and are skipped with the reason otherwise.
"""
