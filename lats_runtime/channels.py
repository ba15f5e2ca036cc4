"""Client channels that spread calls over every replica of a service.

An address names one server ("host:port"), several replicas
("host:port,host:port") or a DNS name that resolves to many
("dns:///name:port", e.g. a Kubernetes headless Service or a Compose
service with several replicas). Every channel uses gRPC's own `round_robin`
load-balancing policy through its service config, so consecutive calls go to
different live replicas, a replica that stops answering is skipped, and
re-resolution of DNS names (and reconnection) is left to gRPC.

Reconnection is prompt: a channel whose server went away tries again at least
every `MAX_RECONNECT_BACKOFF_MS`. (gRPC's own backoff grows to 120 s; after a
restart of 20 s a client sat 10 s or more on a dead connection, refusing every
call while the server was back.)
"""

from __future__ import annotations

import ipaddress
import json
import socket

import grpc

DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024
INITIAL_RECONNECT_BACKOFF_MS = 250
MAX_RECONNECT_BACKOFF_MS = 1000
ROUND_ROBIN = json.dumps({"loadBalancingConfig": [{"round_robin": {}}]})


class AddressError(ValueError):
    """An address that names no server (the message says what form to use)."""


def _split_host_port(item: str) -> tuple[str, str]:
    host, sep, port = item.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise AddressError(f"{item!r} is not host:port (several replicas: host:port,host:port; "
                           "or dns:///name:port)")
    return host.strip("[]"), port


def _literal_family(host: str) -> int | None:
    try:
        return 6 if ipaddress.ip_address(host).version == 6 else 4
    except ValueError:
        return None


def _resolve(host: str, port: int, address: str) -> list[tuple[int, str]]:
    """A host name's addresses: its IPv4 ones if it has any, else its IPv6 ones."""
    for family, version in ((socket.AF_INET, 4), (socket.AF_INET6, 6)):
        try:
            infos = socket.getaddrinfo(host, port, family=family, type=socket.SOCK_STREAM)
        except OSError:
            continue
        if infos:
            return [(version, info[4][0]) for info in infos]
    raise AddressError(f"cannot resolve {host!r} in {address!r}")


def channel_target(address: str) -> str:
    """The gRPC target for an address (see the module docstring).

    A list of replicas becomes an `ipv4:` / `ipv6:` target; host names in a
    list are resolved once, here (use a dns:/// name for names whose
    addresses change).
    """
    address = address.strip()
    if not address:
        raise AddressError("the address is empty; give host:port")
    if "://" in address or address.startswith(("ipv4:", "ipv6:", "unix:")):
        return address
    items = [item.strip() for item in address.split(",") if item.strip()]
    if len(items) == 1:
        _split_host_port(items[0])
        return items[0]
    resolved: list[tuple[int, str, str]] = []
    for item in items:
        host, port = _split_host_port(item)
        family = _literal_family(host)
        if family is not None:
            resolved.append((family, host, port))
            continue
        resolved += [(family, ip, port) for family, ip in _resolve(host, int(port), address)]
    families = {family for family, _, _ in resolved}
    if len(families) > 1:
        raise AddressError(f"{address!r} mixes IPv4 and IPv6 replicas; list one family, or use "
                           "a dns:/// name")
    if families == {6}:
        return "ipv6:" + ",".join(f"[{host}]:{port}" for _, host, port in resolved)
    return "ipv4:" + ",".join(dict.fromkeys(f"{host}:{port}" for _, host, port in resolved))


def channel_options(max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
                    options: list[tuple[str, object]] | None = None) -> list[tuple[str, object]]:
    """The options every channel gets: round-robin balancing, message limits and
    prompt reconnection."""
    return [
        ("grpc.service_config", ROUND_ROBIN),
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", max_message_bytes),
        ("grpc.initial_reconnect_backoff_ms", INITIAL_RECONNECT_BACKOFF_MS),
        ("grpc.max_reconnect_backoff_ms", MAX_RECONNECT_BACKOFF_MS),
        *(options or []),
    ]


def open_channel(address: str, *, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
                 options: list[tuple[str, object]] | None = None) -> grpc.aio.Channel:
    """An asyncio channel to every replica behind `address`, balanced round-robin."""
    return grpc.aio.insecure_channel(channel_target(address),
                                     options=channel_options(max_message_bytes, options))


def open_blocking_channel(address: str, *, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
                          options: list[tuple[str, object]] | None = None) -> grpc.Channel:
    """A blocking (thread-based) channel, otherwise like `open_channel`."""
    return grpc.insecure_channel(channel_target(address),
                                 options=channel_options(max_message_bytes, options))
