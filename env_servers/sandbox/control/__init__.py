"""The INSECURE control: the shared design, where a run's tests execute in the program's own process.

It is the sandbox's first design, kept so the hazard suites can show every
verdict forgery working against it (the process backend's default) and so
bench/bench_sandbox.py can measure the split design's judge against it. It is
shipped only when a launcher is handed SHARED (see worker_script.py); the
production worker (worker/) holds none of it.
"""

from env_servers.sandbox.worker_script import COMMON_MODULES, WorkerDesign

SHARED = WorkerDesign(
    "shared",
    COMMON_MODULES + ("env_servers.sandbox.control.shared_child", "env_servers.sandbox.control.shared_worker"),
    verdict_isolated=False,
    seccomp=False,
)
