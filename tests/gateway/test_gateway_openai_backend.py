"""OpenAIBackend against a fake OpenAI-compatible HTTP server on loopback."""

import grpc
import pytest

from llm_gateway.backends.base import FINISH_FILTERED, FINISH_LENGTH, FINISH_STOP, BackendError
from llm_gateway.backends.base import GenerationRequest
from llm_gateway.backends.openai_backend import OpenAIBackend

from .fake_openai import FakeOpenAI, Reply, completion, error
from .helpers import running_gateway

REQUEST = GenerationRequest(messages=(("user", "hi"),), max_tokens=20, temperature=0.0)


def backend_for(fake: FakeOpenAI, **kwargs) -> OpenAIBackend:
    options = dict(model="m", api_key="none", timeout=5.0, max_retries=3,
                   backoff_initial=0.01, backoff_max=0.02)
    return OpenAIBackend(fake.base_url, **{**options, **kwargs})


async def test_retries_500_and_429_then_succeeds():
    replies = [error(500, "overloaded"), error(429, "slow down"), completion(["hello"])]
    with FakeOpenAI(lambda body, i: replies[i]) as fake:
        backend = backend_for(fake)
        result = await backend.generate(REQUEST)
        await backend.aclose()
    assert [c.text for c in result.choices] == ["hello"]
    assert len(fake.bodies) == 3
    assert (result.prompt_tokens, result.completion_tokens) == (7, 3)
    assert result.model == "fake-model"


async def test_only_set_parameters_are_sent():
    with FakeOpenAI(lambda body, i: completion(["x"])) as fake:
        backend = backend_for(fake)
        await backend.generate(REQUEST)
        await backend.generate(GenerationRequest(messages=(("user", "hi"),), seed=3,
                                                 stop=("\n",), top_p=0.9, model="other"))
        await backend.aclose()
    plain, full = fake.bodies
    assert set(plain) == {"model", "messages", "temperature", "max_tokens"}
    assert plain["messages"] == [{"role": "user", "content": "hi"}]
    assert (full["seed"], full["stop"], full["top_p"], full["model"]) == (3, ["\n"], 0.9, "other")
    assert "n" not in full


@pytest.mark.parametrize(
    ("status", "code"),
    [(400, grpc.StatusCode.INVALID_ARGUMENT), (401, grpc.StatusCode.UNAUTHENTICATED),
     (403, grpc.StatusCode.PERMISSION_DENIED)],
)
async def test_client_errors_are_not_retried_and_keep_the_upstream_message(status, code):
    with FakeOpenAI(lambda body, i: error(status, "upstream says no")) as fake:
        backend = backend_for(fake)
        with pytest.raises(BackendError) as caught:
            await backend.generate(REQUEST)
        await backend.aclose()
    assert caught.value.code == code
    assert "upstream says no" in caught.value.message
    assert len(fake.bodies) == 1


async def test_persistent_5xx_becomes_unavailable_after_retries():
    with FakeOpenAI(lambda body, i: error(503, "down")) as fake:
        backend = backend_for(fake, max_retries=2)
        with pytest.raises(BackendError) as caught:
            await backend.generate(REQUEST)
        await backend.aclose()
    assert caught.value.code == grpc.StatusCode.UNAVAILABLE
    assert "HTTP 503 after 3 attempts: down" in caught.value.message
    assert len(fake.bodies) == 3


async def test_timeouts_become_unavailable():
    with FakeOpenAI(lambda body, i: Reply(200, {}, delay=1.0)) as fake:
        backend = backend_for(fake, timeout=0.2, max_retries=1)
        with pytest.raises(BackendError) as caught:
            await backend.generate(REQUEST)
        await backend.aclose()
    assert caught.value.code == grpc.StatusCode.UNAVAILABLE
    assert "timed out after 2 attempts" in caught.value.message
    assert len(fake.bodies) == 2


async def test_unreachable_endpoint_is_unavailable():
    with FakeOpenAI(lambda body, i: completion(["x"])) as fake:
        url = fake.base_url
    backend = OpenAIBackend(url, api_key="none", model="m", max_retries=1,
                            backoff_initial=0.01, backoff_max=0.02)
    with pytest.raises(BackendError) as caught:
        await backend.generate(REQUEST)
    await backend.aclose()
    assert caught.value.code == grpc.StatusCode.UNAVAILABLE


async def test_native_n_is_used_when_the_endpoint_honours_it():
    def respond(body, i):
        return completion([f"s{k}" for k in range(body.get("n", 1))], completion_tokens=4)

    with FakeOpenAI(respond) as fake:
        backend = backend_for(fake)
        result = await backend.generate(GenerationRequest(messages=(("user", "hi"),), n=3))
        await backend.aclose()
    assert [c.text for c in result.choices] == ["s0", "s1", "s2"]
    assert len(fake.bodies) == 1 and fake.bodies[0]["n"] == 3
    assert result.completion_tokens == 4


async def test_an_endpoint_ignoring_n_is_topped_up_and_usage_summed():
    with FakeOpenAI(lambda body, i: completion([f"sample {i}"], prompt_tokens=10,
                                               completion_tokens=2)) as fake:
        backend = backend_for(fake)
        result = await backend.generate(GenerationRequest(messages=(("user", "hi"),), n=4, seed=100))
        await backend.aclose()
    assert sorted(c.text for c in result.choices) == [f"sample {i}" for i in range(4)]
    assert len(fake.bodies) == 4
    assert fake.bodies[0]["n"] == 4 and all("n" not in b for b in fake.bodies[1:])
    assert sorted(b["seed"] for b in fake.bodies[1:]) == [101, 102, 103]
    assert (result.prompt_tokens, result.completion_tokens) == (40, 8)


async def test_an_endpoint_rejecting_n_falls_back_to_single_calls_from_then_on():
    def respond(body, i):
        if body.get("n", 1) != 1:
            return error(400, "Only one completion choice is allowed")
        return completion([f"s{i}"])

    with FakeOpenAI(respond) as fake:
        backend = backend_for(fake)
        first = await backend.generate(GenerationRequest(messages=(("user", "hi"),), n=2))
        calls_after_first = len(fake.bodies)
        await backend.generate(GenerationRequest(messages=(("user", "hi"),), n=2))
        await backend.aclose()
    assert len(first.choices) == 2
    assert calls_after_first == 3
    assert len(fake.bodies) == 5  # the second request went straight to singles


async def test_finish_reasons_are_mapped():
    reasons = iter(["length", "content_filter", "stop", None])
    with FakeOpenAI(lambda body, i: completion(["t"], finish_reason=next(reasons))) as fake:
        backend = backend_for(fake)
        mapped = [(await backend.generate(REQUEST)).choices[0].finish_reason for _ in range(4)]
        await backend.aclose()
    assert mapped == [FINISH_LENGTH, FINISH_FILTERED, FINISH_STOP, FINISH_STOP]


async def test_through_the_gateway_length_maps_to_the_enum_and_5xx_to_unavailable():
    replies = iter([completion(["a b"], finish_reason="length"), *[error(502, "bad gateway")] * 2])
    with FakeOpenAI(lambda body, i: next(replies)) as fake:
        async with running_gateway(backend_for(fake, max_retries=1)) as client:
            ok = await client.generate([("user", "hi")], run_id="r")
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await client.generate([("user", "hi")])
    assert ok.choices[0].finish_reason == 2  # FINISH_REASON_LENGTH
    assert ok.backend == "openai" and ok.run_usage.prompt_tokens == 7
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE


async def test_without_a_model_name_the_endpoints_only_model_is_used():
    with FakeOpenAI(lambda body, i: completion(["x"]), models=("served-7b",)) as fake:
        backend = backend_for(fake, model="")
        await backend.load()
        assert backend.model == "served-7b"
        await backend.generate(REQUEST)
        await backend.aclose()
    assert fake.bodies[0]["model"] == "served-7b"


@pytest.mark.parametrize("models", [(), ("a", "b")])
async def test_without_a_model_name_none_or_several_served_models_are_refused(models):
    with FakeOpenAI(lambda body, i: completion(["x"]), models=models) as fake:
        backend = backend_for(fake, model="")
        with pytest.raises(BackendError, match="--model") as caught:
            await backend.load()
        await backend.aclose()
    assert caught.value.code == grpc.StatusCode.FAILED_PRECONDITION
