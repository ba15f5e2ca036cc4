"""The bridge's parts on their own: text to OpenEnv actions, observations to text,
pack files, task lists."""

from __future__ import annotations

import pytest

from env_servers.core import TaskNotFound
from env_servers.openenv_bridge.actions import ActionCodec, ObservationView, SchemaProblem
from env_servers.openenv_bridge.tasks import TaskList
from env_servers.pack_file import PackFileError, load_pack_file, parse_pack
from lats_pb import environment_pb2

MOVE = {"properties": {"metadata": {"type": "object"},
                       "move": {"type": "string", "enum": ["up", "down"], "title": "Move"}}}
GUESS = {"properties": {"metadata": {"type": "object"},
                        "guess": {"type": "integer", "description": "Your number"}}}
SAY = {"properties": {"message": {"type": "string", "examples": ["hello", "bye"]}}}
TWO = {"properties": {"tool": {"type": "string"}, "args": {"type": "object"}},
       "examples": [{"tool": "ls", "args": {}}]}


def test_one_text_field_takes_the_text_and_an_enum_makes_the_grammar():
    codec = ActionCodec.from_schema(MOVE)
    assert codec.encode("up") == {"move": "up"}
    assert codec.encode("not json {") == {"move": "not json {"}   # the server validates it
    grammar = codec.grammar([])
    assert list(grammar.examples) == ["up", "down"] and grammar.pattern == "^(?:up|down)$"


def test_a_typed_field_takes_the_text_as_json():
    codec = ActionCodec.from_schema(GUESS)
    assert codec.encode("7") == {"guess": 7}
    assert "the value of 'guess' as JSON" in codec.encode("seven")
    with pytest.raises(SchemaProblem, match="examples"):
        codec.grammar([])
    assert "type integer" in codec.grammar(["7"]).description
    assert list(ActionCodec.from_schema(SAY).grammar([]).examples) == ["hello", "bye"]


def test_several_fields_make_the_text_a_json_object():
    codec = ActionCodec.from_schema(TWO)
    assert codec.field is None
    assert codec.encode('{"tool": "ls", "args": {}}') == {"tool": "ls", "args": {}}
    assert "JSON object" in codec.encode("[1, 2]")
    assert "JSON object" in codec.encode("ls")
    assert "tool (string), args (object)" in codec.grammar(['{"tool": "ls"}']).description
    assert list(codec.grammar([]).examples) == ['{"args": {}, "tool": "ls"}']   # the schema's
    assert ActionCodec.from_schema(TWO, field="tool").encode("ls") == {"tool": "ls"}
    with pytest.raises(SchemaProblem, match="no field 'command'"):
        ActionCodec.from_schema(TWO, field="command")


def test_observations_render_their_fields_in_order():
    schema = {"properties": {"done": {}, "reward": {}, "metadata": {}, "board": {},
                             "message": {}, "scores": {}}}
    view = ObservationView.from_schema(schema)
    text = view.render({"board": "a b\nc d", "message": "hi", "scores": [1, 2]})
    assert text == "board:\na b\nc d\nmessage: hi\nscores: [1, 2]"
    assert ObservationView.from_schema(schema, ["message"]).render(
        {"board": "x", "message": "only me"}) == "only me"
    with pytest.raises(SchemaProblem, match="no field"):
        ObservationView.from_schema(schema, ["colour"])


def test_pack_files_replace_parts_and_refuse_mistakes(tmp_path):
    path = tmp_path / "pack.toml"
    path.write_text('name = "grid"\nreward_mode = "none"\nmax_steps = 9\n'
                    '[reward_range]\nsuccess_threshold = 0.5\n'
                    '[prompt_pack]\ninstructions = "Walk."\nact_stop = ["\\n\\n"]\n'
                    '[prompt_pack.search_hints]\nn_samples = 4\n'
                    '[openenv]\naction_field = "move"\n')
    pack = load_pack_file(path)
    pack.check_sections(("openenv",))
    assert (pack.name, pack.reward_mode, pack.max_steps) == ("grid", "none", 9)
    derived = environment_pb2.PromptPack(instructions="generated", act_template="{task}",
                                         act_stop=["\n"])
    merged = pack.pack(derived)
    assert merged.instructions == "Walk." and list(merged.act_stop) == ["\n\n"]
    assert merged.act_template == "{task}" and merged.search_hints.n_samples == 4
    assert pack.rewards(environment_pb2.RewardRange(max=1)).success_threshold == 0.5
    assert pack.section("openenv")["action_field"] == "move"
    with pytest.raises(PackFileError, match="unknown key"):
        pack.check_sections(())
    with pytest.raises(PackFileError, match="no field named \"act_templat\""):
        parse_pack({"prompt_pack": {"act_templat": "x"}})
    with pytest.raises(PackFileError, match="reward_mode must be one of"):
        parse_pack({"reward_mode": "sometimes"})
    with pytest.raises(PackFileError, match="max_steps"):
        parse_pack({"max_steps": 0})
    broken = tmp_path / "broken.toml"
    broken.write_text("name = \n")
    with pytest.raises(PackFileError, match="not valid TOML"):
        load_pack_file(broken)


def test_task_lists_are_seeds_or_named_resets():
    seeds = TaskList.from_pack({}, default_seeds=3)
    assert seeds.ids() == ["seed-0", "seed-1", "seed-2"]
    assert seeds.reset_kwargs("seed-2") == {"seed": 2}
    for unknown in ("seed-3", "seed-02", "seed--1", "level-1"):
        with pytest.raises(TaskNotFound):
            seeds.reset_kwargs(unknown)
    named = TaskList.from_pack({"list": [{"id": "easy", "reset": {"seed": 1, "level": "easy"}}]},
                               default_seeds=3)
    assert named.ids() == ["easy"] and named.reset_kwargs("easy") == {"seed": 1, "level": "easy"}
    with pytest.raises(PackFileError, match="listed twice"):
        TaskList.from_pack({"list": [{"id": "a", "reset": {}}, {"id": "a", "reset": {}}]}, 3)
    with pytest.raises(PackFileError, match="seeds or list"):
        TaskList.from_pack({"seed": 3}, 3)
