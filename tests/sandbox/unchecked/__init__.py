"""Split workers whose pristine check is switched off or fooled, or whose runs share namespaces, for the hazards of issue 36.

Joined before the split design's entry module, each of these modules patches
one method of the pristine check (an attribute set, not a name bound, so the
join allows it). `UNCHECKED`'s judge never sees a trace: no run retires its
worker, so whatever keeps a later run from a run's objects must be the
sandbox's construction, not the check. `PROBE_FOOLED`'s judge sees each
System V id counter exactly where it expects it, which is what a program
that winds the counter back (issue 36, finding 1) achieves. `SHARED_NAMESPACES`
is the design before issue 36 with its check off: unchecked, and its runs
share the worker's IPC, network and mount namespaces (an INSECURE control,
for hazards the process backend cannot show). Test-only: the production
sandbox ships none of them.
"""

from env_servers.sandbox.worker_script import SPLIT, WorkerDesign


def _split_with(module: str, run_namespaces: bool = SPLIT.run_namespaces) -> WorkerDesign:
    return WorkerDesign(
        SPLIT.name,
        SPLIT.modules[:-1] + (module,) + SPLIT.modules[-1:],
        verdict_isolated=SPLIT.verdict_isolated,
        seccomp=SPLIT.seccomp,
        run_namespaces=run_namespaces,
    )


UNCHECKED = _split_with("tests.sandbox.unchecked.no_traces")
PROBE_FOOLED = _split_with("tests.sandbox.unchecked.fooled_probe")
SHARED_NAMESPACES = _split_with("tests.sandbox.unchecked.no_traces", run_namespaces=False)
