"""Speed of the embedded offline model behind the gateway's `local` backend.

Loads the model in-process through `LocalBackend` and prints, as the best of
--repeats runs (other load only ever slows llama.cpp down, so the fastest run
is the least disturbed one; the CPU pressure seen during the runs is printed):
  * decode tokens/s (one sample) and prompt-evaluation tokens/s (cold prompt);
  * n samples in ONE request vs the same n as sequential calls (wall time and
    completion tokens/s, with the speedup);
  * prefix reuse: a call whose long prompt prefix was seen before vs a cold one;
  * sibling value calls: k different prompts that share a long prefix (the
    value prompts of one expansion's children), sent at once to a backend
    with k concurrent calls (one llama.cpp batch) vs one after another.
With --mix, it instead replays the requests of recorded searches under each
speculative-decoding mode (bench/speculation_mix.py): completion tokens/s,
draft acceptance and seconds per request type, and greedy agreement with off.

This is a script that prints figures, not a test. Usage:
    python bench/bench_local_model.py [--model qwen2.5-coder-0.5b] [--repeats 3] [--n 5]
    python bench/bench_local_model.py --mix bench/request_mix/*.jsonl \
        --model qwen2.5-coder-1.5b --modes off,ngram,draft --out FILE.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from pathlib import Path

from llm_gateway.backends.base import GenerationRequest
from llm_gateway.backends.local import LocalBackend
from llm_gateway.model_store import FAST_MODEL

TASK = "Write a Python function `merge_intervals(intervals)` that merges overlapping intervals."
GUIDE = ("You are an expert Python programmer. Think step by step, write clean code, "
         "add docstrings and handle edge cases such as empty input. ")


def _cold_system(words: int) -> str:
    """A long system prompt that starts with a fresh nonce, so no cache can match it."""
    return f"[session {uuid.uuid4().hex}] " + GUIDE * max(1, words // len(GUIDE.split()))


async def _timed(backend: LocalBackend, request: GenerationRequest):
    started = time.perf_counter()
    result = await backend.generate(request)
    return time.perf_counter() - started, result


async def decode_and_prompt_speed(backend: LocalBackend, prompt_words: int) -> tuple[float, float]:
    """(decode tok/s, prompt tok/s) from llama.cpp's own timings of one call."""
    request = GenerationRequest(messages=(("system", _cold_system(prompt_words)), ("user", TASK)),
                                max_tokens=128, temperature=0.0)
    _, result = await _timed(backend, request)
    decode = result.completion_tokens / (result.extra["decode_ms"] / 1000)
    evaluated = result.prompt_tokens - result.extra["cached_prompt_tokens"]
    prompt = evaluated / (result.extra["prompt_ms"] / 1000)
    return decode, prompt


async def batched_vs_sequential(backend: LocalBackend, n: int, max_tokens: int):
    """Wall seconds and completion tok/s for n samples: one request vs n calls."""
    messages = (("system", _cold_system(60)), ("user", TASK))
    await _timed(backend, GenerationRequest(messages=messages, max_tokens=1))  # same cache state
    batch_s, batch = await _timed(backend, GenerationRequest(
        messages=messages, n=n, max_tokens=max_tokens, temperature=0.8, seed=1))
    seq_s, seq_tokens = 0.0, 0
    for i in range(n):
        seconds, single = await _timed(backend, GenerationRequest(
            messages=messages, n=1, max_tokens=max_tokens, temperature=0.8, seed=100 + i))
        seq_s += seconds
        seq_tokens += single.completion_tokens
    return batch_s, batch.completion_tokens / batch_s, seq_s, seq_tokens / seq_s


async def prefix_reuse(backend: LocalBackend, prefix_words: int):
    """(cold s, warm s, prompt tokens, cached tokens) for two calls sharing a long prefix."""
    system = _cold_system(prefix_words)
    cold_s, cold = await _timed(backend, GenerationRequest(
        messages=(("system", system), ("user", TASK)), max_tokens=8, temperature=0.0))
    warm_s, warm = await _timed(backend, GenerationRequest(
        messages=(("system", system), ("user", TASK + " Use type hints.")),
        max_tokens=8, temperature=0.0))
    return cold_s, warm_s, cold.prompt_tokens, warm.extra["cached_prompt_tokens"]


async def sibling_calls(model: str, args: argparse.Namespace, k: int) -> tuple[float, float]:
    """(one-at-a-time s, concurrent s) for k value-like calls sharing a long prefix."""
    system = _cold_system(args.prefix_words)
    requests = [GenerationRequest(
        messages=(("system", system), ("user", f"{TASK} Sibling {i}: judge attempt {i} "
                                               f"in one sentence.")),
        max_tokens=32, temperature=0.0) for i in range(k)]
    timings = []
    for concurrency in (1, k):
        backend = LocalBackend(model, model_path=args.model_path, max_concurrency=concurrency,
                               n_ctx=args.n_ctx, threads=args.threads)
        try:
            await backend.load()
            await backend.generate(GenerationRequest(messages=requests[0].messages,
                                                     max_tokens=1))   # the prefix cached
            started = time.perf_counter()
            if concurrency == 1:
                for request in requests:
                    await backend.generate(request)
            else:
                await asyncio.gather(*(backend.generate(r) for r in requests))
            timings.append(time.perf_counter() - started)
        finally:
            await backend.aclose()
    return timings[0], timings[1]


def _best(rows, index, *, highest=False):
    values = [row[index] for row in rows]
    return max(values) if highest else min(values)


def _cpu_pressure() -> str:
    """Linux PSI: share of the last 10 s in which some task waited for a CPU."""
    try:
        with open("/proc/pressure/cpu") as handle:
            return handle.readline().split()[1].split("=")[1] + "%"
    except (OSError, IndexError):
        return "n/a"


async def mix_main(args: argparse.Namespace) -> None:
    """The speculation modes over a recorded request mix (bench/speculation_mix.py)."""
    from speculation_mix import load_mix, read_rows, report, run_mode

    mix = load_mix([Path(path) for path in args.mix])
    counts = {kind: sum(1 for item in mix if item["type"] == kind) for kind in
              dict.fromkeys(item["type"] for item in mix)}
    print(f"mix: {len(mix)} requests from {len(args.mix)} recordings {counts}")
    out = Path(args.out)
    for model in args.models or [args.model]:
        for mode in args.modes.split(","):
            await run_mode(model, mode, mix, out, threads=args.threads, draft_max=args.draft_max)
    print(report(read_rows(out)))
    print(f"CPU pressure (PSI some avg10) at the end: {_cpu_pressure()}")


async def main(args: argparse.Namespace) -> None:
    if args.mix:
        await mix_main(args)
        return
    backend = LocalBackend(args.model, model_path=args.model_path, max_concurrency=1,
                           n_ctx=args.n_ctx, threads=args.threads, max_batch_n=max(8, args.n))
    started = time.perf_counter()
    await backend.load()
    print(f"model {backend.model} ({backend.model_path.name}), "
          f"load {time.perf_counter() - started:.1f} s, n_ctx {args.n_ctx}, "
          f"best of {args.repeats} runs")
    pressure = [_cpu_pressure()]
    try:
        speeds = [await decode_and_prompt_speed(backend, args.prompt_words)
                  for _ in range(args.repeats)]
        pressure.append(_cpu_pressure())
        print(f"decode: {_best(speeds, 0, highest=True):.1f} tok/s   "
              f"prompt: {_best(speeds, 1, highest=True):.1f} tok/s "
              f"(cold, ~{args.prompt_words} words)")

        batches = [await batched_vs_sequential(backend, args.n, args.max_tokens)
                   for _ in range(args.repeats)]
        pressure.append(_cpu_pressure())
        b_s, s_s = _best(batches, 0), _best(batches, 2)
        b_tps, s_tps = _best(batches, 1, highest=True), _best(batches, 3, highest=True)
        print(f"n={args.n} x {args.max_tokens} tokens: one request {b_s:.2f} s ({b_tps:.1f} tok/s) "
              f"vs {args.n} sequential calls {s_s:.2f} s ({s_tps:.1f} tok/s): "
              f"speedup {s_s / b_s:.2f}x wall, {b_tps / s_tps:.2f}x tok/s")

        reuse = [await prefix_reuse(backend, args.prefix_words) for _ in range(args.repeats)]
        pressure.append(_cpu_pressure())
        cold_s, warm_s = _best(reuse, 0), _best(reuse, 1)
        print(f"prefix reuse ({reuse[0][2]}-token prompt, {reuse[0][3]} reused): "
              f"cold {cold_s:.2f} s vs shared prefix {warm_s:.2f} s: "
              f"speedup {cold_s / warm_s:.1f}x")
    finally:
        await backend.aclose()
    siblings = [await sibling_calls(args.model, args, args.n) for _ in range(args.repeats)]
    pressure.append(_cpu_pressure())
    one, together = _best(siblings, 0), _best(siblings, 1)
    print(f"{args.n} sibling value calls sharing a {args.prefix_words}-word prefix: one at a "
          f"time {one:.2f} s vs at once {together:.2f} s: speedup {one / together:.2f}x")
    print(f"CPU pressure (PSI some avg10) at start and after each part: {', '.join(pressure)}")


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=FAST_MODEL)
    parser.add_argument("--model-path", default=None)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--prompt-words", type=int, default=400)
    parser.add_argument("--prefix-words", type=int, default=1000)
    parser.add_argument("--mix", nargs="+", default=None,
                        help="recorded searches (exchange-log JSONL) whose requests to replay")
    parser.add_argument("--models", nargs="+", default=None, help="--mix: several models in turn")
    parser.add_argument("--modes", default="off,ngram,draft",
                        help="--mix: speculation modes, comma-separated (off first)")
    parser.add_argument("--draft-max", type=int, default=None)
    parser.add_argument("--out", default="speculation-mix.jsonl",
                        help="--mix: a row per request (kept; a later run resumes from it)")
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(_parse()))
