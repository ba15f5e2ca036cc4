"""Versions of the environment protocol, and what each side says to the other version.

The protocol's version is its proto package: `lats.environment.v2` now;
`lats.v1.Environment` (sessions beside stateless calls) is retired. A server of
this version answers every call to a retired service with FAILED_PRECONDITION
naming the version it speaks (`retired_call_message`); a client that finds no
`lats.environment.v2.Environment` at an address asks the retired service's
Describe, and says which version the server speaks (`missing_service_message`),
so neither side meets a bare UNIMPLEMENTED.
"""

from __future__ import annotations

from lats_pb import environment_pb2

SERVICE = environment_pb2.DESCRIPTOR.services_by_name["Environment"].full_name
PROTOCOL = SERVICE.rsplit(".", 1)[0]                 # "lats.environment.v2"
RETIRED_SERVICES = ("lats.v1.Environment",)
GUIDE = "docs/protocol.md"


def retired_service_of(method: str) -> str | None:
    """The retired service a full method path ("/lats.v1.Environment/Step") belongs to."""
    for service in RETIRED_SERVICES:
        if method.startswith(f"/{service}/"):
            return service
    return None


def retired_call_message(method: str) -> str:
    """What a server of this version answers to a call of a retired version."""
    service = retired_service_of(method) or method
    return (f"{method[:120]} belongs to {service}, a retired version of the environment "
            f"protocol; this server speaks {PROTOCOL} (Reset and Step on snapshots, no "
            f"sessions; {GUIDE}): upgrade the client to {PROTOCOL}")


def missing_service_message(address: str, retired_answered: str | None, details: str) -> str:
    """What a client says when `address` does not serve this version's service.

    `retired_answered` is the retired service whose Describe answered there (the
    server speaks that version), or None when none did."""
    if retired_answered:
        return (f"the environment at {address} speaks {retired_answered}, a retired version "
                f"of the environment protocol; this client needs {PROTOCOL} (Reset and Step "
                f"on snapshots; {GUIDE}): upgrade the environment server")
    return (f"the server at {address} does not serve {SERVICE} ({details[:200]}); is it an "
            f"environment server of protocol {PROTOCOL}?")
