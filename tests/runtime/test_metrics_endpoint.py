"""The metrics endpoint serves /metrics and nothing else."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from lats_runtime.metrics import start_metrics_server


@pytest.mark.parametrize("host", ["127.0.0.1", "::1"])
def test_metrics_are_served_at_slash_metrics_only(host):
    try:
        server = start_metrics_server(host, 0)
    except OSError as error:
        pytest.skip(f"no {host} here ({error})")
    try:
        with urllib.request.urlopen(server.url, timeout=5) as reply:
            assert reply.status == 200 and b"# TYPE" in reply.read()
        base = server.url.removesuffix("/metrics")
        for path in ("/", "/healthz", "/metrics/x", "/anything"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(base + path, timeout=5)
            assert refused.value.code == 404 and b"/metrics" in refused.value.read()
    finally:
        server.stop()
