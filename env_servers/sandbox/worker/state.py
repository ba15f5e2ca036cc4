"""What the worker learns once at startup and every later fork reads."""


class WorkerState:
    """candidate_uid: the uid the candidate and tester switch to (--candidate-uid), or None.
    baseline: the worker's pristine state (pristine.Baseline, with --pristine), or None.
    namespace_init: True when the worker is PID 1 of a PID namespace of its own (the secure
    backends); only then may a judge kill every other process it can see.
    run_namespaces: with --run-namespaces, what each judge needs to give its run namespaces of
    its own (run_namespaces.RunNamespaces), else None.
    """

    candidate_uid = None
    baseline = None
    namespace_init = False
    run_namespaces = None


STATE = WorkerState()
