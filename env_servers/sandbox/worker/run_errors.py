"""The exceptions that stop a test, the tester or a run (BaseExceptions: a test's `except Exception` cannot catch them)."""


class RunTimeUp(BaseException):
    """The run's wall-clock limit passed (split design: raised in the judge)."""


class CandidateGone(BaseException):
    """The candidate process ended or broke the judge protocol; the message says which."""


class TesterGone(BaseException):
    """The tester ended or broke its protocol: its remaining tests fail, the run goes on."""


class Unjudgeable(BaseException):
    """A value that cannot cross between candidate and judge; fails the test that met it.

    A BaseException, so a test's own `except Exception` cannot turn it into a pass.
    """
