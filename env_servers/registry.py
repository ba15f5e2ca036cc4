"""Which environments `lats serve env NAME` can serve: name -> "module:Class".

A new environment adds one line here; its class must implement
`env_servers.core.Domain` and be constructible without arguments.
"""

from __future__ import annotations

import importlib

from env_servers.core import Domain

DOMAINS: dict[str, str] = {
    "game24": "env_servers.game24.domain:Game24Domain",
    "webshop": "env_servers.webshop.domain:WebShopDomain",
    "coderunner": "env_servers.coderunner.domain:CodeRunnerDomain",
    "hotpotqa": "env_servers.wiki.domain:HotpotQADomain",
    "hotpotqa-cot": "env_servers.wiki.domain:HotpotQACoTDomain",
}


def load_domain(name: str) -> Domain:
    """A new instance of the domain registered as `name` (KeyError if none)."""
    try:
        target = DOMAINS[name]
    except KeyError:
        raise KeyError(
            f"unknown environment {name!r}; known: {', '.join(sorted(DOMAINS))}"
        ) from None
    module_name, _, class_name = target.partition(":")
    domain_class = getattr(importlib.import_module(module_name), class_name)
    return domain_class()
