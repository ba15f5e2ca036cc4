"""The code-runner environment: Python programming problems run in a sandbox."""

from env_servers.coderunner.config import CodeRunnerConfig
from env_servers.coderunner.domain import CodeRunnerDomain

__all__ = ["CodeRunnerConfig", "CodeRunnerDomain"]
