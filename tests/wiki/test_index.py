"""Building the offline index from both HotPotQA layouts, and the `wiki` command."""

from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from env_servers.wiki.cli import wiki
from env_servers.wiki.corpora import offline_index_path, open_offline
from env_servers.wiki.domain import HotpotQADomain
from env_servers.wiki.hotpot_files import HotpotFileError, read_distractor
from env_servers.wiki.index import build_index, ensure_index
from env_servers.wiki.offline import OfflineCorpus
from env_servers.wiki.settings import DEFAULT_DISTRACTOR_FILE, WikiSettings

ORIGINAL = [  # the layout of hotpot_dev_distractor_v1.json: one JSON list
    {"_id": "5a8b57f25542995d1e6f1371",
     "question": "Were Scott Derrickson and Ed Wood of the same nationality?",
     "answer": "yes", "type": "comparison", "level": "hard",
     "supporting_facts": [["Scott Derrickson", 0], ["Ed Wood", 0]],
     "context": [["Scott Derrickson", ["Scott Derrickson (born July 16, 1966) is an American "
                                       "director.", " He lives in Los Angeles, California."]],
                 ["Ed Wood", ["Edward Davis Wood Jr. was an American filmmaker."]]]},
    {"_id": "5a8c7595554299585d9e36b6",
     "question": "What government position was held by the woman who portrayed Corliss "
                 "Archer in the film Kiss and Tell?",
     "answer": "Chief of Protocol", "type": "bridge", "level": "hard",
     "supporting_facts": [["Shirley Temple", 0]],
     "context": [["Shirley Temple", ["Shirley Temple Black was an American actress.",
                                     " She served as Chief of Protocol."]],
                 ["Ed Wood", ["A duplicate title keeps its first paragraph."]],
                 ["Etiquette &amp; Espionage", ["A novel."]]]},
]


@pytest.fixture
def original_file(tmp_path):
    path = tmp_path / "hotpot_dev_distractor_v1.json"
    path.write_text(json.dumps(ORIGINAL), "utf-8")
    return path


def test_original_layout_builds_an_index(original_file, tmp_path):
    stats = build_index([original_file], tmp_path / "index.sqlite3")
    assert (stats.questions, stats.pages, stats.paragraphs) == (2, 4, 5)
    corpus = OfflineCorpus(stats.path)
    try:
        assert corpus.search("ed wood").page.sentences == (
            "Edward Davis Wood Jr. was an American filmmaker.",)
        assert corpus.search("Etiquette & Espionage").page.title == "Etiquette & Espionage"
        questions = corpus.questions()
        assert [(q.index, q.qid, q.answer) for q in questions] == [
            (0, "5a8b57f25542995d1e6f1371", "yes"), (1, "5a8c7595554299585d9e36b6",
                                                     "Chief of Protocol")]
        assert questions[1].supporting_facts == (("Shirley Temple", 0),)
    finally:
        corpus.close()


def test_hotpotqa_ids_name_tasks_when_the_file_has_them(original_file, tmp_path):
    settings = WikiSettings(index_path=tmp_path / "i.sqlite3", data_files=(original_file,),
                            cache_dir=tmp_path)
    domain = HotpotQADomain(settings)
    try:
        assert domain.list_tasks("indexed") == ["hotpotqa/0", "hotpotqa/1"]
        reset = domain.reset("5a8c7595554299585d9e36b6", 0, {})
        assert reset.task_id == "hotpotqa/1" and reset.info["qid"] == "5a8c7595554299585d9e36b6"
    finally:
        domain.close()


def test_vendored_jsonl_layout_and_columnar_context(tmp_path):
    stats = build_index([DEFAULT_DISTRACTOR_FILE], tmp_path / "vendored.sqlite3")
    assert (stats.questions, stats.pages, stats.paragraphs) == (100, 991, 992)
    columnar = tmp_path / "columnar.jsonl"
    record = {"question": "Q?", "answer": "A", "context": {
        "title": ["Page One", "Page Two"], "sentences": [["One.", " Two."], ["Three."]]}}
    columnar.write_text(json.dumps(record) + "\n", "utf-8")
    ((question, paragraphs),) = list(read_distractor(columnar))
    assert question.index == 0 and [p.title for p in paragraphs] == ["Page One", "Page Two"]
    assert paragraphs[0].sentences == ("One.", "Two.")


@pytest.mark.parametrize(("content", "message"), [
    ("not json at all", "neither a JSON list nor JSON Lines"),
    ('[{"question": "Q?", "answer": "A"}]', "has no 'context'"),
    ('[{"context": []}]', "has no 'question' field"),
    ("[1, 2]", "not a question object"),
])
def test_unusable_files_say_what_is_wrong(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content, "utf-8")
    with pytest.raises(HotpotFileError, match=message):
        build_index([path], tmp_path / "bad.sqlite3")
    assert not (tmp_path / "bad.sqlite3").exists(), "a failed build leaves no index behind"


def test_ensure_index_builds_once_and_rebuilds_a_foreign_file(tmp_path, original_file):
    path = tmp_path / "cache" / "index.sqlite3"
    ensure_index(path, [original_file])
    built = path.stat().st_mtime_ns
    ensure_index(path, [original_file])
    assert path.stat().st_mtime_ns == built, "a current index is reused"
    path.write_bytes(b"not a database")
    ensure_index(path, [original_file])
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT COUNT(*) FROM pages").fetchone() == (4,)


def test_the_server_builds_its_index_from_the_data_files_into_the_cache(tmp_path, original_file):
    settings = WikiSettings(data_files=(original_file,), cache_dir=tmp_path / "cache")
    expected = offline_index_path(settings)
    assert expected.parent == tmp_path / "cache" and not expected.exists()
    corpus = open_offline(settings)
    corpus.close()
    assert expected.is_file()
    other = WikiSettings(data_files=(DEFAULT_DISTRACTOR_FILE,), cache_dir=tmp_path / "cache")
    assert offline_index_path(other) != expected, "other data, other index file"
    with pytest.raises(FileNotFoundError, match="LATS_WIKI_DATA"):
        offline_index_path(WikiSettings(data_files=(tmp_path / "nope.json",), cache_dir=tmp_path))


def test_wiki_index_and_search_commands(tmp_path, original_file, monkeypatch):
    monkeypatch.setenv("LATS_WIKI_CACHE_DIR", str(tmp_path / "cache"))
    runner = CliRunner()
    output = tmp_path / "out.sqlite3"
    built = runner.invoke(wiki, ["index", str(original_file), "--output", str(output)])
    assert built.exit_code == 0, built.output
    assert "indexed 2 questions, 4 pages (5 paragraphs)" in built.output
    assert f"LATS_WIKI_INDEX={output}" in built.output
    found = runner.invoke(wiki, ["search", "scott derrickson", "--index", str(output)])
    assert found.output.startswith("[Scott Derrickson] Scott Derrickson (born July 16, 1966)")
    missed = runner.invoke(wiki, ["search", "Shirley", "--index", str(output)])
    assert missed.output.strip() == "Could not find [Shirley]. Similar: ['Shirley Temple']."
    default = runner.invoke(wiki, ["index", str(original_file)])
    assert default.exit_code == 0 and str(tmp_path / "cache") in default.output
    refused = runner.invoke(wiki, ["index", str(tmp_path / "missing.json")])
    assert refused.exit_code != 0
