"""Listen addresses of servers."""

from __future__ import annotations


def listen_address(host: str, port: int) -> str:
    """host:port, with IPv6 hosts in brackets."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}"
