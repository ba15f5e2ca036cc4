"""Test-only worker module (see __init__.py): every System V id counter probe finds what it expects."""

from env_servers.sandbox.ipc_objects import IdCounter


def _always_follows(self):
    return True


IdCounter.probe_follows = _always_follows
