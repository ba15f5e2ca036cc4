"""What hazard tests share: the backends they run on, a sandbox of each, and what they ask of a result."""

from __future__ import annotations

from env_servers.sandbox import make_sandbox
from tests.sandbox.control import SHARED

HAZARD_BACKENDS = ["bwrap", "docker", "unsandboxed"]


def expect_contained(sandbox, wins: list[str]) -> None:
    """Secure backends: no win for the attack. The unsandboxed control: some win, or the check proves nothing."""
    if sandbox.secure:
        assert wins == [], f"{sandbox.name} let these through: {wins}"
    else:
        assert wins, "the unsandboxed control shows no win, so this check could never fail"


def hazard_box(request, workers: int = 1):
    """A sandbox of `request.param`'s backend: a secure one, or the unsandboxed control (the insecure
    process backend, shared design)."""
    if request.param == "docker":
        return make_sandbox("docker", base_url=request.getfixturevalue("docker_url"), workers=workers)
    if request.param == "unsandboxed":
        return make_sandbox("process", allow_insecure=True, workers=workers, design=SHARED)
    return make_sandbox(request.param, workers=workers)
