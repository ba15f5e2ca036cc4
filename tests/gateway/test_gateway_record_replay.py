"""RecordingBackend → ReplayBackend round trip through the real gRPC gateway."""

import asyncio
import json

import grpc
import pytest

from llm_gateway.backends.base import GenerationRequest
from llm_gateway.backends.exchange_log import request_key
from llm_gateway.backends.factory import make_backend
from llm_gateway.backends.record import CachingBackend, RecordingBackend
from llm_gateway.backends.replay import ReplayBackend
from llm_gateway.backends.scripted import ScriptedBackend

from .helpers import running_gateway

RULES = [{"name": "act", "contains": ["Question"], "responses": ["Action: a", "Action: b", "Action: c"]}]
PROMPTS = [
    dict(messages=[("user", "Question: one")], n=3, temperature=0.7, purpose="act", run_id="r"),
    dict(messages=[("user", "Question: two")], n=1, stop=["b"], max_tokens=1, seed=5),
    dict(messages=[("system", "s"), ("user", "Question: three")], n=2, top_p=0.5),
]


def fields(response):
    return [(c.text, c.finish_reason) for c in response.choices], (
        response.usage.prompt_tokens, response.usage.completion_tokens)


async def test_record_then_replay_returns_identical_choices(tmp_path):
    path = tmp_path / "nested" / "exchanges.jsonl"
    async with running_gateway(RecordingBackend(ScriptedBackend(RULES), path)) as client:
        recorded = [await client.generate(**p) for p in PROMPTS]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == len(PROMPTS)
    assert set(lines[0]) == {"key", "request", "choices", "usage", "model"}
    assert lines[0]["request"]["purpose"] == "act"
    assert lines[0]["model"] == "scripted"

    async with running_gateway(ReplayBackend(path)) as client:
        replayed = [await client.generate(**p) for p in PROMPTS]
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.generate([("user", "Question: never recorded " + "y" * 100)],
                                  purpose="reflect")
    assert [fields(r) for r in replayed] == [fields(r) for r in recorded]
    assert replayed[1].choices[0].finish_reason != 0
    assert replayed[0].backend == "replay"
    details = caught.value.details()
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "'reflect'" in details and "--record FILE" in details
    assert "Question: never recorded " + "y" * 55 in details
    assert "y" * 56 not in details


async def test_repeated_recordings_of_one_key_are_served_in_order_cycling(tmp_path):
    path = tmp_path / "cycle.jsonl"
    answers = iter(["first", "second"])

    class Counting(ScriptedBackend):
        async def generate(self, request):
            result = await super().generate(request)
            result.choices[0].text = next(answers)
            return result

    recorder = RecordingBackend(Counting([{"name": "any", "responses": ["?"]}]), path)
    request = GenerationRequest(messages=(("user", "same"),))
    await recorder.generate(request)
    await recorder.generate(request)
    await recorder.aclose()

    replay = ReplayBackend(path)
    texts = [(await replay.generate(request)).choices[0].text for _ in range(3)]
    assert texts == ["first", "second", "first"]


async def test_concurrent_recording_writes_whole_lines(tmp_path):
    path = tmp_path / "many.jsonl"
    recorder = RecordingBackend(ScriptedBackend([{"name": "any", "responses": ["x " * 50]}]), path)
    requests = [GenerationRequest(messages=(("user", f"q{i}"),)) for i in range(50)]
    await asyncio.gather(*(recorder.generate(r) for r in requests))
    await recorder.aclose()
    keys = {json.loads(line)["key"] for line in path.read_text().splitlines()}
    assert keys == {request_key(r) for r in requests}


def test_key_is_sha256_of_canonical_key_fields():
    a = GenerationRequest(messages=(("user", "hi"),), purpose="act")
    b = GenerationRequest(messages=(("user", "hi"),), purpose="value")
    c = GenerationRequest(messages=(("user", "hi"),), temperature=0.5)
    assert request_key(a) == request_key(b)  # purpose is a label, not an input
    assert request_key(a) != request_key(c)
    assert len(request_key(a)) == 64


def test_replay_file_problems_are_reported(tmp_path):
    with pytest.raises(FileNotFoundError, match="--record"):
        ReplayBackend(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"key": "k", "choices": []}\nnot json\n')
    with pytest.raises(ValueError, match="bad.jsonl:2"):
        ReplayBackend(bad)


def test_factory_builds_wraps_and_rejects(tmp_path):
    script = tmp_path / "rules.json"
    script.write_text(json.dumps(RULES))
    recorded = make_backend("scripted", script=script, record=tmp_path / "r.jsonl")
    assert isinstance(recorded, RecordingBackend) and recorded.name == "scripted"
    with pytest.raises(ValueError, match="valid backends: openai, replay, scripted, local"):
        make_backend("gpt")
    with pytest.raises(ValueError, match="--replay FILE"):
        make_backend("replay")


async def test_a_cache_answers_recorded_requests_and_records_the_rest(tmp_path):
    path = tmp_path / "cache.jsonl"
    calls = []

    class Counting(ScriptedBackend):
        async def generate(self, request):
            calls.append(request.messages[-1][1])
            return await super().generate(request)

    async with running_gateway(CachingBackend(Counting(RULES), path)) as client:
        first = [await client.generate(**p) for p in PROMPTS]
        again = [await client.generate(**p) for p in PROMPTS]
    assert len(calls) == len(PROMPTS), "the repeats were answered from the cache"
    assert [fields(r) for r in again] == [fields(r) for r in first]
    assert [r.usage.calls for r in again] == [1, 1, 1], "a cached answer still counts as a call"
    # a new gateway on the same file starts warm; a new seed is a new request
    async with running_gateway(CachingBackend(Counting(RULES), path)) as client:
        await client.generate(**PROMPTS[1])
        await client.generate(**dict(PROMPTS[1], seed=6))
    assert len(calls) == len(PROMPTS) + 1
    assert len(path.read_text().splitlines()) == len(PROMPTS) + 1
    with pytest.raises(ValueError, match="not both"):
        make_backend("scripted", script=None, record=path, cache=path)
