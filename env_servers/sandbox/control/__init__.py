"""The INSECURE control: the shared design, where a run's tests execute in the program's own process.

It is the sandbox's first design, kept so the hazard suites can show every
verdict forgery working against it (the process backend's default) and so
bench/bench_sandbox.py can measure the split design's judge against it. It is
shipped only when a launcher asks for design="shared" (see worker_script.py);
the production worker (worker/) holds none of it.
"""
