"""Which environments `lats serve env NAME` can serve: name -> "module:Class".

The built-in domains are listed here, then the adapters that front other
ecosystems' environments (each needs its extra installed, e.g.
`pip install 'lats-platform[openenv]'`). An installed package adds its own by
declaring an entry point in the group `lats.environments`, e.g. in its
pyproject.toml:

    [project.entry-points."lats.environments"]
    countdown = "countdown_env.domain:CountdownDomain"

The class must implement `env_servers.core.Domain`; it is built as
`Class(settings)` when it declares a `settings_class`, else as `Class()`.
A plugin cannot replace a built-in name.
"""

from __future__ import annotations

import importlib
import logging
from importlib import metadata

from env_servers.core import Domain

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "lats.environments"

BUILTIN_DOMAINS: dict[str, str] = {
    "game24": "env_servers.game24.domain:Game24Domain",
    "webshop": "env_servers.webshop.domain:WebShopDomain",
    "coderunner": "env_servers.coderunner.domain:CodeRunnerDomain",
    "hotpotqa": "env_servers.wiki.domain:HotpotQADomain",
    "hotpotqa-cot": "env_servers.wiki.domain:HotpotQACoTDomain",
}

# Adapters: environments of other ecosystems, configured by their settings
# (which environment, which game). They are not deployed by deploy/ as they are.
ADAPTER_DOMAINS: dict[str, str] = {
    "openenv": "env_servers.openenv_bridge.domain:OpenEnvDomain",
    "textarena": "env_servers.textarena.domain:TextArenaDomain",
}


class UnknownDomain(KeyError):
    """No domain is registered under the name; the message lists the known ones."""

    def __str__(self) -> str:
        return str(self.args[0])


def registered_domains() -> dict[str, str]:
    """Every servable domain: the built-ins and adapters, then entry points of
    installed packages."""
    reserved = {**BUILTIN_DOMAINS, **ADAPTER_DOMAINS}
    domains = dict(reserved)
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name in reserved:
            if entry.value != reserved[entry.name]:
                log.warning("entry point %s = %s ignored: %r is a built-in environment",
                            entry.name, entry.value, entry.name)
            continue
        domains.setdefault(entry.name, entry.value)
    return domains


def domain_class(name: str) -> type[Domain]:
    """The class registered as `name` (UnknownDomain if none; ImportError if it fails)."""
    domains = registered_domains()
    try:
        target = domains[name]
    except KeyError:
        raise UnknownDomain(
            f"unknown environment {name!r}; known: {', '.join(sorted(domains))}") from None
    module_name, _, class_name = target.partition(":")
    found = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(found, type) and issubclass(found, Domain)):
        raise TypeError(f"{target} (environment {name!r}) is not a env_servers.core.Domain")
    return found


def load_domain(name: str, settings=None) -> Domain:
    """A new instance of the domain `name`: with `settings` (default: the settings
    class's defaults) when it declares a settings class."""
    cls = domain_class(name)
    if cls.settings_class is None:
        return cls()
    return cls(settings if settings is not None else cls.settings_class())
