"""The INSECURE control: the shared design, where a run's tests execute in the program's own process.

It is the sandbox's first design, kept with the tests so the hazard suites can
show every verdict forgery working against it (the process backend, handed
SHARED) and so bench/bench_sandbox.py can measure the split design's judge
against it. The production sandbox (env_servers/sandbox) holds none of it:
a launcher ships these modules only when it is handed SHARED.
"""

from env_servers.sandbox.worker_script import COMMON_MODULES, WorkerDesign

SHARED = WorkerDesign(
    "shared",
    COMMON_MODULES + ("tests.sandbox.control.shared_child", "tests.sandbox.control.shared_worker"),
    verdict_isolated=False,
    seccomp=False,
)
