"""Speculative decoding on a search's own request mix: speed, acceptance and greedy agreement.

The mix is the requests of recorded searches (exchange-log JSONL files, as
`lats serve gateway --record` writes them). Each mode gets a fresh local
backend and sends the whole mix in recorded order, so every mode meets the
same prompt-cache states a real search does. One row per request goes to
--out as it finishes (JSONL); a later run skips each (model, mode) whose rows
are all there and sends a partly done one again from its start (a request's
time depends on the cache the earlier ones left). The report groups rows by
request type:

  greedy    a first attempt at temperature 0 (act or cot)
  samples   an expansion: n samples at temperature > 0
  refine    a code expansion whose prompt carries a failed attempt, its test
            feedback and a self-reflection on it (a program to fix: much to copy)
  value     a value (state-scoring) prompt
  reflect   a self-reflection prompt
  setup     anything else the search asked once (e.g. writing unit tests)

Figures per mode and type: completion tokens/s (emitted tokens over wall
seconds), the draft acceptance rate, wall seconds per request, and for
greedy requests how many texts equal the `off` mode's and where the first
differing one diverges.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from llm_gateway.backends.base import GenerationRequest
from llm_gateway.backends.local import LocalBackend
from llm_gateway.backends.speculation import Speculation

TYPES = ("greedy", "samples", "refine", "value", "reflect", "setup")
NEXT_ATTEMPT = re.compile(r"\[attempt (\d+)\]:\s*$")  # the code packs' prompt ends so


def request_type(request: dict) -> str:
    """The mix's label for one recorded request (see the module docstring)."""
    purpose = request.get("purpose") or ""
    prompt = request["messages"][-1][1] if request["messages"] else ""
    if purpose in ("value", "reflect"):
        return purpose
    if purpose in ("act", "cot"):
        if float(request.get("temperature") or 0.0) == 0.0 and int(request.get("n") or 1) == 1:
            return "greedy"
        attempt = NEXT_ATTEMPT.search(prompt)
        return "refine" if attempt and int(attempt.group(1)) >= 2 else "samples"
    return "setup"


def load_mix(paths: list[Path]) -> list[dict]:
    """The recorded requests of `paths`, in order, each with its file, index and type."""
    mix = []
    for path in paths:
        for index, line in enumerate(path.read_text().splitlines()):
            if not line.strip():
                continue
            request = json.loads(line)["request"]
            mix.append({"file": path.name, "index": index, "type": request_type(request),
                        "request": request})
    return mix


def generation_request(request: dict) -> GenerationRequest:
    return GenerationRequest(
        messages=tuple((role, content) for role, content in request["messages"]),
        n=int(request.get("n") or 1),
        temperature=float(request.get("temperature") or 0.0),
        max_tokens=int(request.get("max_tokens") or 256),
        stop=tuple(request.get("stop") or ()),
        seed=request.get("seed"),
        top_p=request.get("top_p"),
        purpose=request.get("purpose") or "",
    )


async def run_mode(model: str, mode: str, mix: list[dict], out: Path, *, threads: int | None,
                   draft_max: int | None) -> None:
    """Send the whole mix through a fresh backend speculating by `mode`, a row per request."""
    rows = read_rows(out)
    mine = [r for r in rows if (r["model"], r["mode"]) == (model, mode)]
    if len(mine) >= len(mix):
        return
    if mine:  # partly done: start this mode again
        kept = [r for r in rows if (r["model"], r["mode"]) != (model, mode)]
        out.write_text("".join(json.dumps(r) + "\n" for r in kept))
    backend = LocalBackend(model, threads=threads, max_batch_n=8,
                           speculation=Speculation(mode, draft_max=draft_max))
    try:
        await backend.load()
        for item in mix:  # in recorded order: the cache states a search meets
            started = time.perf_counter()
            result = await backend.generate(generation_request(item["request"]))
            seconds = time.perf_counter() - started
            row = {"model": model, "mode": mode, "in_effect": backend.speculation_in_effect,
                   "file": item["file"], "index": item["index"], "type": item["type"],
                   "seconds": round(seconds, 3), "completion_tokens": result.completion_tokens,
                   "prompt_tokens": result.prompt_tokens,
                   "draft_tokens": result.extra.get("draft_tokens", 0),
                   "draft_accepted_tokens": result.extra.get("draft_accepted_tokens", 0),
                   "greedy": float(item["request"].get("temperature") or 0.0) == 0.0,
                   "texts": [choice.text for choice in result.choices]}
            with out.open("a") as handle:
                handle.write(json.dumps(row) + "\n")
            print(f"  {model} {mode:5} {item['file']}#{item['index']} {item['type']:7} "
                  f"{result.completion_tokens:4} tok {seconds:6.1f} s", flush=True)
    finally:
        await backend.aclose()


def read_rows(out: Path) -> list[dict]:
    if not out.exists():
        return []
    return [json.loads(line) for line in out.read_text().splitlines() if line.strip()]


def _divergence(a: str, b: str) -> str:
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"char {at} of {len(a)}: {a[max(0, at - 20):at + 10]!r} vs {b[max(0, at - 20):at + 10]!r}"


def _cell(rows: list[dict]) -> dict:
    return {"n": len(rows), "seconds": sum(r["seconds"] for r in rows),
            "tokens": sum(r["completion_tokens"] for r in rows),
            "drafted": sum(r["draft_tokens"] for r in rows),
            "accepted": sum(r["draft_accepted_tokens"] for r in rows)}


def _figures(cell: dict, base: dict | None) -> str:
    if not cell["n"] or not cell["seconds"]:
        return "-"
    rate = cell["tokens"] / cell["seconds"]
    ratio = ""
    if base is not None and base["seconds"] and base["tokens"]:
        ratio = f" ({rate / (base['tokens'] / base['seconds']):.2f}x)"
    accept = (f", {cell['accepted'] / cell['drafted']:.0%} of {cell['drafted']}"
              if cell["drafted"] else "")
    return f"{rate:.1f}{ratio}{accept}, {cell['seconds'] / cell['n']:.1f} s"


def report(rows: list[dict]) -> str:
    """The tables: per model, type and mode; the whole mix; greedy agreement with `off`.

    A mode's figures are compared with `off` on the same requests only (a mode
    still running, or cut short, has fewer)."""
    lines = []
    for model in sorted({row["model"] for row in rows}):
        mine = [row for row in rows if row["model"] == model]
        off = {(r["file"], r["index"]): r for r in mine if r["mode"] == "off"}
        modes = [m for m in ("off", "ngram", "draft") if any(r["mode"] == m for r in mine)]
        lines.append(f"\n{model}: completion tok/s (x vs off on the same requests), "
                     "draft acceptance, s/request")
        lines.append("| type | requests | " + " | ".join(modes) + " |")
        lines.append("|---|---|" + "---|" * len(modes))
        for kind in (*TYPES, "all"):
            base_rows = [r for r in off.values() if kind in ("all", r["type"])]
            if not base_rows:
                continue
            parts = []
            for mode in modes:
                these = [r for r in mine if r["mode"] == mode and kind in ("all", r["type"])
                         and (r["file"], r["index"]) in off]
                if mode == "off":
                    parts.append(_figures(_cell(these), None))
                    continue
                keys = {(r["file"], r["index"]) for r in these}
                paired = len(keys) < len(base_rows)
                figures = _figures(_cell(these), _cell([off[key] for key in keys]))
                parts.append(figures + (f" ({len(keys)} requests)" if paired and these else ""))
            lines.append(f"| {kind} | {len(base_rows)} | " + " | ".join(parts) + " |")
        lines.extend(_greedy_agreement(rows, model))
    return "\n".join(lines)


def _greedy_agreement(rows: list[dict], model: str) -> list[str]:
    by_key = {(r["mode"], r["file"], r["index"]): r for r in rows if r["model"] == model}
    lines = []
    for mode in ("ngram", "draft"):
        same = total = 0
        first = None
        for (row_mode, file, index), row in sorted(by_key.items()):
            base = by_key.get(("off", file, index))
            if row_mode != mode or base is None or not row["greedy"]:
                continue
            total += 1
            if row["texts"] == base["texts"]:
                same += 1
            elif first is None:
                first = f"{file}#{index} ({row['type']}), {_divergence(row['texts'][0], base['texts'][0])}"
        if total:
            lines.append(f"greedy texts equal to off under {mode}: {same}/{total}"
                         + (f"; first divergence {first}" if first else ""))
    return lines
