"""The WebShop `Domain`: the shop served as a LATS environment.

Tasks are episodes `fixed_0` ... in the catalog's seeded order (splits
test = fixed_0-499, dev = fixed_500-1499, train = the rest, all). Reset
takes no options and ignores the seed (an episode is fixed by its id).
Rewards (`--reward-mode`, LATS_WEBSHOP_REWARD_MODE): "oracle" (default, the
paper's setting) gives the paper's reward on [Buy Now]; "honest" gives 0
and shows only what was bought, and states hold only the goal's
instruction, so the purchase is judged by Score alone. Score is the paper's
reward either way; success is reward 1.

The catalog (catalog.py) is opened, and built into the cache on first use,
in a background thread started with the domain, so the server listens at
once; calls wait until it is ready.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from lats_pb import environment_pb2
from lats_runtime.quoting import quoted_list

from env_servers.core import (
    Domain,
    DomainDescription,
    InvalidRequest,
    InvalidTask,
    ResetOutcome,
    ScoreResult,
    State,
    StepOutcome,
    TaskNotFound,
    TaskSpec,
)
from env_servers.core.answer_keys import answer_key
from env_servers.webshop.catalog import open_catalog
from env_servers.webshop.goals import SPLITS
from env_servers.webshop.pack import prompt_pack
from env_servers.webshop.prompts import MAX_DEPTH
from env_servers.webshop.settings import WebShopSettings
from env_servers.webshop.shop import ForeignState, Shop, UnknownTask

MAX_STEPS = MAX_DEPTH
SUCCESS_THRESHOLD = 1.0

GRAMMAR = environment_pb2.ActionGrammar(
    description=(
        "search[query] on the search page; click[text] with the exact text of a button, "
        "product id or option shown in brackets on the current page (e.g. click[Next >], "
        "click[B0KE05TY10], click[4 ounce (pack of 2)], click[Buy Now]); think[thought] to "
        "reason (observed as OK.). Anything else is an invalid action."
    ),
    # A trajectory that is valid on every episode's first pages.
    examples=[
        "search[gluten free vegetarian bacon 4 ounce pack of 2]",
        "think[I should compare the first results before clicking one.]",
        "click[Next >]",
        "click[< Prev]",
        "click[Back to Search]",
    ],
    pattern=r"(?i)^\s*(?:search|click|think)\s*\[.*\]\s*$",
)


class WebShopDomain(Domain):
    name = "webshop"
    version = "1.0.0"
    description = (
        "WebShop (Yao, Chen, Yang and Narasimhan, 2022): buy the product a human instruction "
        "describes in a "
        "simulated shop. Search, browse result pages, open items, pick options and buy; the "
        "reward scores the bought product's type, attributes, options and price against the "
        "goal. The catalog is generated from WebShop's 12,087 human instructions with "
        "contrastive distractors, or loaded from WebShop's own files."
    )
    offload_sync_calls = True
    settings_class = WebShopSettings

    def __init__(self, settings: WebShopSettings | None = None):
        self.settings = settings or WebShopSettings()
        self._shop: Shop | None = None
        self._error: BaseException | None = None
        self._ready = threading.Event()
        threading.Thread(target=self._open, name="webshop-catalog", daemon=True).start()

    def _open(self) -> None:
        try:
            self._shop = Shop(open_catalog(self.settings),
                              honest=self.settings.reward_mode == "honest")
        except BaseException as error:  # surfaced by the first call that needs the shop
            self._error = error
        finally:
            self._ready.set()

    def ready(self) -> None:
        """Waits for the catalog (built on first use: about 20 s); raises if it failed."""
        self.shop  # noqa: B018 - waits, and raises the build's error

    @property
    def shop(self) -> Shop:
        """The shop, once its catalog is open (waits for the first build)."""
        self._ready.wait()
        if self._shop is None:
            raise RuntimeError(f"the WebShop catalog could not be opened: {self._error}")
        return self._shop

    def describe(self) -> DomainDescription:
        return DomainDescription(
            capabilities=environment_pb2.Capabilities(inline_tasks=False, score=True),
            action_grammar=GRAMMAR,
            reward_range=environment_pb2.RewardRange(min=0, max=1,
                                                     success_threshold=SUCCESS_THRESHOLD),
            prompt_pack=prompt_pack(),
            splits=SPLITS,
            reward_mode=self.settings.reward_mode,
            max_steps=MAX_STEPS,
            max_action_bytes=4096,
            facts=environment_pb2.EnvironmentFacts(answer_keys=True, state_keys=True),
        )

    def list_tasks(self, split: str) -> list[str]:
        try:
            return self.shop.task_ids(split)
        except KeyError:
            raise InvalidRequest(
                f"unknown split {split!r}; choose one of {', '.join(SPLITS)}") from None

    def reset(self, task: TaskSpec, seed: int, options: Mapping[str, str]) -> ResetOutcome:
        if options:
            raise InvalidRequest(
                f"unknown option(s) {quoted_list(options)}: webshop takes no options")
        if not isinstance(task, str):
            raise InvalidTask("webshop has no inline tasks; pass a task id such as fixed_0")
        try:
            state = self.shop.new_episode(task)
        except UnknownTask as error:
            raise TaskNotFound(str(error)) from None
        return ResetOutcome(state, state["observation"], task,
                            info={"instruction": state["goal"]["instruction_text"]},
                            state_key=_state_key(state, done=False, purchase=None))

    def step(self, state: State, action: str) -> StepOutcome:
        result = self._checked(self.shop.step, state, action)
        purchase = result.state.get("purchase") if result.done else None
        key = (answer_key("webshop", purchase["asin"], sorted(purchase["options"].items()))
               if purchase else "")
        state_key = "" if result.invalid else _state_key(result.state, result.done, purchase)
        return StepOutcome(result.state, result.observation, reward=result.reward,
                           terminated=result.done, invalid_action=result.invalid,
                           info=result.info, answer_key=key, state_key=state_key)

    def observation_of(self, state: State) -> str:
        self._checked(self.shop.check, state)
        return state["observation"]

    def score(self, state: State) -> ScoreResult:
        reward = self._checked(self.shop.purchase_reward, state)
        details = self.shop.score_details(state)
        if reward is None:
            return ScoreResult(0.0, False, {"purchased": 0.0}, details)
        metrics = {"purchased": 1.0, "r_type": reward.r_type, "r_att": reward.r_att,
                   "r_price": float(bool(reward.r_price))}
        if reward.r_option is not None:
            metrics["r_option"] = reward.r_option
        return ScoreResult(reward.total, reward.total >= SUCCESS_THRESHOLD, metrics, details)

    @staticmethod
    def _checked(function, *args):
        try:
            return function(*args)
        except ForeignState as error:
            raise InvalidRequest(str(error)) from None


def _state_key(state: State, done: bool, purchase: Mapping[str, Any] | None) -> str:
    """What the rest of an episode depends on: the page in view (its kind, query,
    result page, product and chosen options) and whether and what it bought."""
    return answer_key("webshop", state["view"], done, purchase)
