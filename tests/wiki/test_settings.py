"""Server settings come from flags or environment variables and are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from env_servers.core.domain_settings import settings_from_environment
from env_servers.wiki.settings import DEFAULT_DISTRACTOR_FILE, WikiSettings


def from_env(variables):
    return settings_from_environment(WikiSettings, variables)


def test_defaults_are_honest_and_offline_on_the_vendored_data():
    settings = from_env({})
    assert (settings.reward_mode, settings.corpus) == ("honest", "offline")
    assert settings.data_files == (DEFAULT_DISTRACTOR_FILE,) and DEFAULT_DISTRACTOR_FILE.is_file()
    assert settings.index_path is None and "lats-platform" in settings.user_agent


def test_every_setting_has_an_environment_variable(tmp_path):
    settings = from_env({
        "LATS_HOTPOTQA_REWARD_MODE": "Oracle", "LATS_WIKI_CORPUS": "live",
        "LATS_WIKI_INDEX": str(tmp_path / "i.sqlite3"),
        "LATS_WIKI_DATA": f"{tmp_path / 'a.json'}:{tmp_path / 'b.jsonl'}",
        "LATS_HOTPOTQA_QUESTIONS": str(tmp_path / "q.json"),
        "LATS_WIKI_CACHE_DIR": str(tmp_path / "cache"),
        "LATS_WIKI_BASE_URL": "http://127.0.0.1:9/", "LATS_WIKI_USER_AGENT": "me",
        "LATS_WIKI_TIMEOUT": "2.5"})
    assert (settings.reward_mode, settings.corpus) == ("oracle", "live")
    assert settings.data_files == (tmp_path / "a.json", tmp_path / "b.jsonl")
    assert settings.index_path == tmp_path / "i.sqlite3"
    assert settings.questions_file == Path(tmp_path / "q.json")
    assert (settings.base_url, settings.user_agent, settings.timeout_seconds) == (
        "http://127.0.0.1:9", "me", 2.5)


@pytest.mark.parametrize(("variables", "message"), [
    ({"LATS_HOTPOTQA_REWARD_MODE": "lenient"}, "LATS_HOTPOTQA_REWARD_MODE"),
    ({"LATS_WIKI_CORPUS": "dump"}, "LATS_WIKI_CORPUS"),
    ({"LATS_WIKI_TIMEOUT": "soon"}, "LATS_WIKI_TIMEOUT"),
    ({"LATS_WIKI_TIMEOUT": "-1"}, "LATS_WIKI_TIMEOUT"),
])
def test_bad_values_name_the_variable(variables, message):
    with pytest.raises(ValueError, match=message):
        from_env(variables)
