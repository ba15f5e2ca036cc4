"""One error rule for settings: a search the client cannot send raises InvalidSetting
naming the field, before any call; results give 64-bit integers as ints."""

from __future__ import annotations

import pytest

from lats_pb import planner_pb2 as pb

from lats_client import InvalidSetting
from lats_client.requests import search_config
from lats_client.types import message_dict


@pytest.mark.parametrize("settings, field", [
    ({"max_calls": -1}, "max_calls"), ({"k": -3}, "k"), ({"n": -1}, "n"),
    ({"temperature": "hot"}, "temperature"), ({"config": {"n_samples": -2}}, "n_samples"),
    ({"max_tokens": 2.5}, "max_tokens"), ({"seed": 2 ** 70}, "seed"),
])
def test_a_value_a_field_cannot_hold_is_an_invalid_setting_naming_it(settings, field):
    with pytest.raises(InvalidSetting) as raised:
        search_config(**settings)
    assert raised.value.field == field and str(raised.value).startswith(f"{field}=")


@pytest.mark.parametrize("shortcut", ["n", "k", "depth"])
def test_a_shortcut_of_zero_is_refused_rather_than_read_as_the_default(shortcut):
    with pytest.raises(InvalidSetting, match="leave it out for the method's default"):
        search_config(**{shortcut: 0})


def test_valid_settings_still_build_the_config():
    config = search_config({"seed": 4}, method="lats", n=3, k=5, max_calls=10, temperature=0.5)
    assert (config.method, config.n_samples, config.iterations, config.seed) == ("lats", 3, 5, 4)
    assert config.budget.max_calls == 10 and config.temperature == 0.5
    with pytest.raises(TypeError, match="no field 'nn'"):
        search_config(nn=3)


def test_64_bit_integers_come_back_as_ints():
    config = pb.SearchConfig(seed=7, n_samples=3)
    config.budget.max_calls = 5
    values = message_dict(config)
    assert values["seed"] == 7 and isinstance(values["seed"], int)
    assert values["budget"]["max_calls"] == 5
