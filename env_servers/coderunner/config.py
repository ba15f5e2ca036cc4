"""Settings of the code-runner environment, from flags or LATS_CODERUNNER_* variables."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from env_servers.sandbox.base import Limits

SANDBOXES = ("bwrap", "docker", "process")
REWARD_MODES = ("none", "oracle")
DEFAULT_INTERNAL_TESTS = 4
MAX_INTERNAL_TESTS = 20
ENV_PREFIX = "LATS_CODERUNNER_"


@dataclass(frozen=True)
class CodeRunnerConfig:
    """How the code runner runs programs and rewards them.

    reward_mode "none" (default): rewards come from the internal tests only;
    hidden tests run in Score alone. "oracle" reproduces the official LATS
    code: every step also runs the hidden tests, and an episode ends with
    reward 1 as soon as a program passes them (hidden ground truth steers
    the search; Describe reports reward_mode "oracle").
    """

    sandbox: str = "bwrap"
    allow_insecure_sandbox: bool = False
    reward_mode: str = "none"
    internal_tests: int = DEFAULT_INTERNAL_TESTS
    data_dir: Path | None = None
    extra_task_files: tuple[Path, ...] = ()
    step_limits: Limits = field(default_factory=lambda: Limits(wall_seconds=5.0, cpu_seconds=5))
    score_limits: Limits = field(default_factory=lambda: Limits(wall_seconds=10.0, cpu_seconds=10))

    def __post_init__(self) -> None:
        if self.sandbox not in SANDBOXES:
            raise ValueError(f"sandbox must be one of {', '.join(SANDBOXES)}, got {self.sandbox!r}")
        if self.sandbox == "process" and not self.allow_insecure_sandbox:
            raise ValueError("the process sandbox does not isolate programs; pass "
                             "--allow-insecure-sandbox to use it anyway (development only)")
        if self.reward_mode not in REWARD_MODES:
            raise ValueError(f"reward mode must be one of {', '.join(REWARD_MODES)}, "
                             f"got {self.reward_mode!r}")
        if not 1 <= self.internal_tests <= MAX_INTERNAL_TESTS:
            raise ValueError(f"internal tests must be 1..{MAX_INTERNAL_TESTS}, "
                             f"got {self.internal_tests}")

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> CodeRunnerConfig:
        """The config that LATS_CODERUNNER_SANDBOX, _ALLOW_INSECURE_SANDBOX, _REWARD_MODE,
        _INTERNAL_TESTS and _TASK_FILES (os.pathsep-separated) describe; the data
        directory comes from LATS_CODERUNNER_DATA (see tasks.default_data_dir)."""
        env = os.environ if environ is None else environ

        def get(name: str, default: str = "") -> str:
            return env.get(ENV_PREFIX + name, default).strip()

        files = tuple(Path(p) for p in get("TASK_FILES").split(os.pathsep) if p)
        return cls(
            sandbox=get("SANDBOX", "bwrap"),
            allow_insecure_sandbox=get("ALLOW_INSECURE_SANDBOX").lower() in ("1", "true", "yes"),
            reward_mode=get("REWARD_MODE", "none"),
            internal_tests=int(get("INTERNAL_TESTS", str(DEFAULT_INTERNAL_TESTS))),
            extra_task_files=files,
        )
