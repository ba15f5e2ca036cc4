"""The planner's view of the model: n completions of chat messages, with usage.

`ModelClient` is the interface the search core depends on; `GatewayModel`
implements it over the LLM gateway's gRPC API. Usage is summed per run here
so every result can report its own calls and tokens, and the run's budget is
enforced here from the usage each response reports (gateways keep no per-run
state, so any gateway replica can serve any call).
"""

from __future__ import annotations

import abc
import asyncio
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass
class UsageTotals:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0      # of prompt_tokens, served from a prompt cache

    def add(self, calls: int, prompt_tokens: int, completion_tokens: int,
            cached_prompt_tokens: int = 0) -> None:
        self.calls += calls
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.cached_prompt_tokens += cached_prompt_tokens


@dataclass(frozen=True)
class SamplingParams:
    n: int = 1
    temperature: float = 1.0
    stop: tuple[str, ...] = ()
    max_tokens: int = 256
    seed: int | None = None
    purpose: str = ""
    key: str = ""          # what the call is about (a node id): kept with recorded calls


class BusyClock:
    """Wall time during which at least one call is in flight (overlaps count once)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._in_flight = 0
        self._since = 0.0

    def __enter__(self) -> "BusyClock":
        if self._in_flight == 0:
            self._since = time.monotonic()
        self._in_flight += 1
        return self

    def __exit__(self, *exc) -> None:
        self._in_flight -= 1
        if self._in_flight == 0:
            self.seconds += time.monotonic() - self._since


class BudgetExhausted(Exception):
    """The run's model budget is spent; the search must stop."""


def call_kind(params: SamplingParams) -> str:
    """What a call is for (RunResult.calls_by_kind): its purpose, and for actions
    whether they were sampled at the root (node "0": its draws "0#k", its greedy
    attempt "0@greedy") or deeper."""
    if params.purpose != "act":
        return params.purpose or "other"
    node = params.key.split("#")[0].split("@")[0]
    return "act:root" if node == "0" else "act:deeper"


class ModelClient(abc.ABC):
    """Generates completions; accumulates usage in `self.usage`, and the calls made
    by kind (call_kind) in `self.calls_by_kind`."""

    def __init__(self) -> None:
        self.usage = UsageTotals()
        self.busy = BusyClock()   # wall time spent waiting for the model
        self.calls_by_kind: Counter[str] = Counter()

    @abc.abstractmethod
    async def complete(self, messages: Sequence[tuple[str, str]], params: SamplingParams) -> list[str]:
        """Returns params.n completions; raises BudgetExhausted when the budget is spent."""


@dataclass(frozen=True)
class RunBudget:
    """Caps on a run's model use (0 = no cap)."""

    max_calls: int = 0
    max_total_tokens: int = 0


CallRecorder = Callable[[Sequence[tuple[str, str]], SamplingParams, list[str], str], None]


class GatewayModel(ModelClient):
    """A ModelClient backed by the LLM gateway service, enforcing the run's budget.

    A call is refused (BudgetExhausted) before it is sent when the calls made
    and in flight reach `max_calls`, or the tokens used reach
    `max_total_tokens`; concurrent calls of the run count while in flight.
    `record` (optional) sees every answered call: its messages, sampling
    parameters, completions and the model that answered.
    """

    def __init__(self, gateway, run_id: str, model: str = "", budget: RunBudget | None = None,
                 record: CallRecorder | None = None):
        super().__init__()
        self._gateway = gateway  # planner.gateway_client.GatewayClient
        self._run_id = run_id
        self._model = model
        self._budget = budget or RunBudget()
        self._in_flight = 0
        self._record = record
        self.model_name = model  # replaced by what the gateway reports

    def _check_budget(self) -> None:
        budget, used = self._budget, self.usage
        calls = used.calls + self._in_flight
        if budget.max_calls and calls >= budget.max_calls:
            raise BudgetExhausted(f"the run has used {calls} of its {budget.max_calls}-call "
                                  "budget")
        tokens = used.prompt_tokens + used.completion_tokens
        if budget.max_total_tokens and tokens >= budget.max_total_tokens:
            raise BudgetExhausted(f"the run has used {tokens} of its "
                                  f"{budget.max_total_tokens}-token budget")

    async def complete(self, messages, params: SamplingParams) -> list[str]:
        self._check_budget()
        self.calls_by_kind[call_kind(params)] += 1
        self._in_flight += 1
        try:
            with self.busy:
                response = await self._gateway.generate(
                    list(messages), n=params.n, temperature=params.temperature,
                    stop=list(params.stop), max_tokens=params.max_tokens, seed=params.seed,
                    purpose=params.purpose, run_id=self._run_id, model=self._model,
                )
        except asyncio.CancelledError:
            # Cancelled in flight (e.g. a parallel search found its answer): the
            # gateway may have served it, so it counts as a call; its tokens are unknown.
            self.usage.add(1, 0, 0)
            raise
        finally:
            self._in_flight -= 1
        if response.model or response.backend:
            self.model_name = f"{response.backend}:{response.model}".strip(":")
        self.usage.add(response.usage.calls or 1, response.usage.prompt_tokens,
                       response.usage.completion_tokens, response.usage.cached_prompt_tokens)
        texts = [choice.text for choice in response.choices]
        if self._record is not None:
            self._record(messages, params, texts, self.model_name)
        return texts
