"""What the worker learns once at startup and every later fork reads."""


class WorkerState:
    """candidate_uid: the uid the candidate and tester switch to (--candidate-uid), or None.
    baseline: the worker's pristine state (pristine.Baseline, with --pristine), or None.
    """

    candidate_uid = None
    baseline = None


STATE = WorkerState()
