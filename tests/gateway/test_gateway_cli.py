"""`lats serve gateway` as a real subprocess."""

import asyncio
import importlib.util
import json
import os
import signal
import sys

import pytest

from planner.gateway_client import GatewayClient


def gateway_command() -> list[str]:
    """`lats serve gateway`, or `python -m llm_gateway` (the same click command)
    while other packages `lats` registers are not importable yet."""
    try:
        import lats.cli  # noqa: F401
    except ImportError:
        return [sys.executable, "-m", "llm_gateway"]
    return [sys.executable, "-c", "import sys; from lats.cli import main; sys.exit(main())",
            "serve", "gateway"]


async def run_to_exit(*args: str, env: dict | None = None) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        *gateway_command(), *args, env={**os.environ, **(env or {})},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    _, stderr = await asyncio.wait_for(process.communicate(), 30)
    return process.returncode, stderr.decode()


async def test_scripted_gateway_answers_and_exits_cleanly_on_sigterm(tmp_path):
    script = tmp_path / "rules.json"
    script.write_text(json.dumps([{"name": "hi", "contains": ["hello"],
                                   "responses": ["hi there", "hey"]}]))
    process = await asyncio.create_subprocess_exec(
        *gateway_command(), "--backend", "scripted", "--script", str(script),
        "--host", "127.0.0.1", "--port", "0", "--max-concurrency", "2",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        assert line.startswith("listening on 127.0.0.1:"), line
        address = line.split()[-1]
        async with GatewayClient(address, timeout=10) as client:
            response = await client.generate([("user", "hello gateway")], n=3, run_id="r")
            described = await client.describe_backend()
        assert [c.text for c in response.choices] == ["hi there", "hey", "hi there"]
        assert response.run_usage.calls == 1
        assert (described.backend, described.max_concurrency) == ("scripted", 2)
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, stderr.decode()


async def test_backend_that_cannot_start_fails_with_one_line(tmp_path):
    code, stderr = await run_to_exit(
        "--port", "0",
        env={"LATS_GATEWAY_BACKEND": "replay", "LATS_REPLAY": str(tmp_path / "gone.jsonl")})
    assert code != 0
    assert "Traceback" not in stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("Error: cannot start the replay backend: replay file")
    assert "--record FILE" in last


@pytest.mark.skipif(importlib.util.find_spec("llm_gateway.backends.local") is None,
                    reason="the embedded local backend is not written yet")
async def test_local_backend_with_a_missing_model_fails_clearly(tmp_path):
    code, stderr = await run_to_exit(
        "--backend", "local", "--model-path", str(tmp_path / "missing.gguf"), "--port", "0")
    assert code != 0
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1].startswith("Error: cannot start the local backend")


async def test_upstream_retries_that_outlast_the_deadline_are_refused_at_start():
    code, stderr = await run_to_exit("--backend", "openai", "--model", "m", "--base-url",
                                     "http://127.0.0.1:9/v1", "--timeout", "60",
                                     "--max-retries", "4", "--deadline", "120", "--port", "0")
    assert code == 1
    assert "more than the gateway's --deadline 120s" in stderr and "--max-retries" in stderr


async def test_a_scripted_gateway_can_take_a_real_models_time(tmp_path):
    script = tmp_path / "rules.json"
    script.write_text(json.dumps([{"name": "any", "responses": ["ok"]}]))
    process = await asyncio.create_subprocess_exec(
        *gateway_command(), "--backend", "scripted", "--script", str(script), "--latency", "0.4",
        "--host", "127.0.0.1", "--port", "0", stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT)
    try:
        line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        while "listening on" not in line:
            line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        address = line.split("listening on")[1].split()[0]
        async with GatewayClient(address, timeout=10) as client:
            started = asyncio.get_running_loop().time()
            replies = await asyncio.gather(*(client.generate([("user", "hi")]) for _ in range(3)))
            elapsed = asyncio.get_running_loop().time() - started
        assert [r.choices[0].text for r in replies] == ["ok"] * 3
        assert 0.4 <= elapsed < 1.2        # the calls wait, concurrently
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), 30)
