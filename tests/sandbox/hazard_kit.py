"""What every hazard test asks of a result: contained on a secure backend, shown working on the control."""

from __future__ import annotations


def expect_contained(sandbox, wins: list[str]) -> None:
    """Secure backends: no win for the attack. The unsandboxed control: some win, or the check proves nothing."""
    if sandbox.secure:
        assert wins == [], f"{sandbox.name} let these through: {wins}"
    else:
        assert wins, "the unsandboxed control shows no win, so this check could never fail"
