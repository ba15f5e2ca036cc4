"""Reward modes convert between the wire enum and the short names people type."""

import pytest
from lats_pb import environment_pb2 as env_pb

from lats_runtime.reward_modes import NAMES, name_of, to_wire


def test_every_short_name_round_trips_through_the_wire_enum():
    assert [to_wire(name) for name in NAMES] == [
        env_pb.REWARD_MODE_NONE, env_pb.REWARD_MODE_ORACLE, env_pb.REWARD_MODE_HONEST]
    assert [name_of(to_wire(name)) for name in NAMES] == list(NAMES)


def test_an_unknown_name_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="none, oracle, honest"):
        to_wire("orcale")


def test_an_unstated_or_unknown_value_has_no_name():
    assert name_of(env_pb.REWARD_MODE_UNSPECIFIED) == ""
    assert name_of(99) == ""
