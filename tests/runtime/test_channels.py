"""Addresses of one or many replicas become gRPC targets balanced round-robin."""

import pytest

from lats_runtime.channels import AddressError, channel_target


@pytest.mark.parametrize(("address", "target"), [
    ("127.0.0.1:5000", "127.0.0.1:5000"),
    ("game24:50051", "game24:50051"),
    ("dns:///game24.lats.svc:50051", "dns:///game24.lats.svc:50051"),
    ("127.0.0.1:1,127.0.0.1:2", "ipv4:127.0.0.1:1,127.0.0.1:2"),
    (" 10.0.0.5:1 , 10.0.0.6:1 ", "ipv4:10.0.0.5:1,10.0.0.6:1"),
    ("[::1]:1,[::1]:2", "ipv6:[::1]:1,[::1]:2"),
    ("localhost:7,127.0.0.1:8", "ipv4:127.0.0.1:7,127.0.0.1:8"),
])
def test_targets(address, target):
    assert channel_target(address) == target


@pytest.mark.parametrize(("address", "says"), [
    ("", "empty"),
    ("no-port", "is not host:port"),
    ("host:port", "is not host:port"),
    ("127.0.0.1:1,[::1]:2", "mixes IPv4 and IPv6"),
    ("127.0.0.1:1,no-such-host.invalid:2", "cannot resolve"),
])
def test_bad_addresses_say_what_to_write(address, says):
    with pytest.raises(AddressError, match=says):
        channel_target(address)
