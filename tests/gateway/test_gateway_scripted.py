"""ScriptedBackend: rule matching, n/cycling, stop, max_tokens, no-match."""

import json

import grpc
import pytest
from click.testing import CliRunner

from llm_gateway.backends.base import FINISH_LENGTH, FINISH_STOP, BackendError, GenerationRequest
from llm_gateway.backends.scripted import ScriptedBackend
from llm_gateway.cli import serve_gateway

RULES = [
    {"name": "value", "purpose": "value", "responses": ["Score: 7"]},
    {"name": "search", "contains": ["Question:", "capital"], "not_contains": ["France"],
     "responses": ["Thought: look it up\nAction: search[capital]", "Action: finish[Paris]"]},
    {"name": "france", "contains": ["France"], "responses": ["Action: finish[Paris] done now"]},
]


def request(prompt: str, **kwargs) -> GenerationRequest:
    return GenerationRequest(messages=(("system", "you are an agent"), ("user", prompt)), **kwargs)


async def test_first_matching_rule_answers_and_n_cycles_its_responses():
    backend = ScriptedBackend(RULES)
    result = await backend.generate(request("Question: the capital of Peru?", n=3))
    assert [c.text for c in result.choices] == [
        "Thought: look it up\nAction: search[capital]",
        "Action: finish[Paris]",
        "Thought: look it up\nAction: search[capital]",
    ]
    assert all(c.finish_reason == FINISH_STOP for c in result.choices)
    assert result.prompt_tokens == 4 + 5  # approximate: whitespace words
    assert result.completion_tokens == 6 + 2 + 6


async def test_purpose_and_not_contains_select_rules():
    backend = ScriptedBackend(RULES)
    valued = await backend.generate(request("Question: capital of France?", purpose="value"))
    assert valued.choices[0].text == "Score: 7"
    france = await backend.generate(request("Question: capital of France?"))
    assert france.choices[0].text.startswith("Action: finish[Paris]")


async def test_matching_uses_the_last_user_message_only():
    backend = ScriptedBackend(RULES, default="fallback")
    req = GenerationRequest(messages=(("user", "France"), ("assistant", "ok"), ("user", "next")))
    result = await backend.generate(req)
    assert result.choices[0].text == "fallback"


async def test_anywhere_looks_at_every_message_of_the_conversation():
    """A chat-turn episode: the task is in its first user message, the last holds
    only the latest observation; `anywhere` tells episodes apart."""
    rules = [{"name": "peru", "contains": ["left: 3"], "anywhere": ["Input: Peru"],
              "responses": ["peru step"]},
             {"name": "other", "contains": ["left: 3"], "responses": ["other step"]}]
    backend = ScriptedBackend(rules)
    episode = (("user", "Input: Peru"), ("assistant", "a"), ("user", "Observation: left: 3"))
    other = (("user", "Input: Chile"), ("assistant", "a"), ("user", "Observation: left: 3"))
    assert (await backend.generate(GenerationRequest(messages=episode))).choices[0].text == \
        "peru step"
    assert (await backend.generate(GenerationRequest(messages=other))).choices[0].text == \
        "other step"
    with pytest.raises(ValueError, match="'anywhere' must be a list of strings"):
        ScriptedBackend([{"anywhere": "Input", "responses": ["x"]}])


async def test_greedy_tells_the_greedy_first_attempt_from_the_samples():
    """The planner asks its greedy first child (temperature 0, n=1) apart from the
    samples: without `greedy`, both start at responses[0]."""
    rules = [{"name": "first", "purpose": "act", "greedy": True, "responses": ["greedy move"]},
             {"name": "samples", "purpose": "act", "greedy": False,
              "responses": ["sample a", "sample b"]}]
    backend = ScriptedBackend(rules)
    first = await backend.generate(request("task", purpose="act", temperature=0.0))
    samples = await backend.generate(request("task", purpose="act", temperature=1.0, n=2))
    assert first.choices[0].text == "greedy move"
    assert [c.text for c in samples.choices] == ["sample a", "sample b"]
    either = ScriptedBackend([{"responses": ["same"]}])
    for temperature in (0.0, 0.7):
        assert (await either.generate(request("t", temperature=temperature))).choices[0].text == "same"
    with pytest.raises(ValueError, match="'greedy' must be true or false"):
        ScriptedBackend([{"greedy": "yes", "responses": ["x"]}])


async def test_stop_sequence_cuts_at_the_earliest_match():
    backend = ScriptedBackend(RULES)
    result = await backend.generate(request("Question: capital?", n=2, stop=("]", "\n")))
    assert [c.text for c in result.choices] == ["Thought: look it up", "Action: finish[Paris"]
    assert all(c.finish_reason == FINISH_STOP for c in result.choices)


async def test_max_tokens_cuts_words_and_reports_length():
    backend = ScriptedBackend(RULES)
    result = await backend.generate(request("France", max_tokens=2))
    assert result.choices[0].text == "Action: finish[Paris]"
    assert result.choices[0].finish_reason == FINISH_LENGTH
    exact = await backend.generate(request("France", max_tokens=4))
    assert exact.choices[0].finish_reason == FINISH_STOP


async def test_no_matching_rule_is_failed_precondition_with_the_prompt_tail():
    backend = ScriptedBackend(RULES)
    prompt = "x" * 300 + " tail of the prompt"
    with pytest.raises(BackendError) as caught:
        await backend.generate(request(prompt))
    assert caught.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert "no scripted rule matched" in caught.value.message
    assert "tail of the prompt" in caught.value.message
    assert "x" * 200 not in caught.value.message


def test_rules_load_from_json_files(tmp_path):
    plain = tmp_path / "rules.json"
    plain.write_text(json.dumps(RULES))
    assert [r.name for r in ScriptedBackend.from_file(plain).rules] == ["value", "search", "france"]
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"rules": RULES[:1], "default": "hm"}))
    assert len(ScriptedBackend.from_file(wrapped).rules) == 1


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("[{\"name\": \"a\"}]", "needs 'responses'"),
        ("[{\"name\": \"a\", \"responses\": [\"x\"], \"contain\": []}]", "unknown fields"),
        ("{not json", "not valid JSON"),
        ("{\"rules\": [], \"default\": 3}", "'default' must be a string"),
        ("[]", "no rules and no default"),
        ("{}", "no rules and no default"),
        ("{\"_comment\": \"only a comment\"}", "no rules and no default"),
        ("{\"rule\": [{\"responses\": [\"x\"]}]}", "unknown keys ['rule']"),
        ("[{\"purpose\": \"action\", \"responses\": [\"x\"]}]", "never sends"),
    ],
)
def test_bad_rule_files_are_rejected_with_the_reason(tmp_path, content, fragment):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ValueError, match="bad.json") as caught:
        ScriptedBackend.from_file(path)
    assert fragment in str(caught.value)


def test_a_default_alone_is_a_valid_script(tmp_path):
    path = tmp_path / "default.json"
    path.write_text(json.dumps({"_comment": "answers everything alike", "rules": [],
                                "default": "4 + 4 = 8"}))
    assert ScriptedBackend.from_file(path).rules == []


def test_the_rules_format_is_in_the_gateways_help():
    shown = CliRunner().invoke(serve_gateway, ["--help"])
    assert shown.exit_code == 0, shown.output
    for fragment in ('"responses"', '"contains"', '"not_contains"', '"purpose"', '"default"',
                     "act", "value", "reflect", "setup", "cot", "no rules and no default"):
        assert fragment in shown.output, fragment
