"""The shop as an environment: episodes, steps and scores over JSON states.

An episode's state (JSON, self-contained, so any replica continues it):
  catalog       id of the catalog it runs on (another catalog refuses it)
  task_id       "fixed_N"
  goal          the goal dict (instruction, attributes, options, price bound)
  view          the page shown: kind, query, page number, item, chosen
                options, detail tab (views.View)
  observation   the latest observation
  done, reward, purchase   set by [Buy Now]

A step renders the current page, reads what can be clicked from its HTML
(text_view), and follows the clicked link (views.view_from_url), exactly as
a person in the browser would. Anything that is not an action, or a button
not on the page, is an invalid action: an observation, never an error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from env_servers.webshop.actions import CLICK, SEARCH, THINK, ActionError, parse_action
from env_servers.webshop.goals import SPLITS, Goal, parse_task_id, split_positions, task_id
from env_servers.webshop.pages import PageRenderer, score_text
from env_servers.webshop.reward import Reward, purchase_reward
from env_servers.webshop.store import CatalogStore
from env_servers.webshop.text_view import PageReading, click_key, read_page
from env_servers.webshop.views import DONE, RESULTS, View, view_from_url

State = dict[str, Any]
INVALID = "Invalid action!"


class UnknownTask(LookupError):
    """A task id that is not an episode of this catalog."""


class ForeignState(ValueError):
    """A state made on another catalog."""


@dataclass(frozen=True)
class StepResult:
    state: State
    observation: str
    reward: float = 0.0
    done: bool = False
    invalid: bool = False
    info: dict[str, Any] = field(default_factory=dict)


class Shop:
    """Episodes of one catalog. `honest`: [Buy Now] earns no reward and shows none, and
    states carry only the goal's instruction (the rest is looked up by task id for
    Score), so nothing a client sees or holds tells how good a purchase is."""

    def __init__(self, store: CatalogStore, honest: bool = False):
        self.store = store
        self.honest = honest
        self.pages = PageRenderer(store)
        self._reading = lru_cache(maxsize=2048)(self._read)

    # ---------------------------------------------------------------- tasks
    def task_ids(self, split: str) -> list[str]:
        if split not in SPLITS:
            raise KeyError(split)
        return [task_id(p) for p in split_positions(split, self.store.goal_count)]

    def goal(self, task: str) -> Goal:
        position = parse_task_id(task, self.store.goal_count)
        if position is None:
            raise UnknownTask(
                f"unknown task {task[:80]!r}; episodes are fixed_0 to "
                f"fixed_{self.store.goal_count - 1} (ListTasks lists them)")
        return self.store.goal(position)

    # ------------------------------------------------------------- episodes
    def new_episode(self, task: str) -> State:
        goal = self.goal(task)
        view = View()
        shown = {"instruction_text": goal["instruction_text"]} if self.honest else goal
        return {"catalog": self.store.catalog_id, "task_id": task, "goal": shown,
                "view": view.to_json(), "observation": self.reading(task, goal, view).text,
                "done": False, "reward": 0.0, "purchase": None}

    def check(self, state: State) -> None:
        if state.get("catalog") != self.store.catalog_id:
            raise ForeignState(
                f"this state was made on WebShop catalog {state.get('catalog')!r}, but this "
                f"server runs catalog {self.store.catalog_id!r}; continue it on a server with "
                "the same catalog data and seed")

    def reading(self, task: str, goal: Goal, view: View) -> PageReading:
        """Text and clickables of a page (cached; pages of a task never change)."""
        return self._reading(task, json.dumps(view.to_json(), sort_keys=True),
                             goal["instruction_text"])

    def _read(self, task: str, view_json: str, instruction: str) -> PageReading:
        goal = {"instruction_text": instruction}
        return read_page(self.pages.render(task, goal, View.from_json(json.loads(view_json))))

    def page_html(self, task: str, view: View) -> str:
        """The HTML a browser gets for `view` of episode `task` (the site's pages)."""
        goal = self.goal(task)
        reward = None
        if view.kind == DONE:
            product = self.store.product(view.asin)
            if product is not None:
                reward = purchase_reward(product, goal, product["price"], view.options)
        return self.pages.render(task, goal, view, reward)

    def step(self, state: State, text: str) -> StepResult:
        self.check(state)
        try:
            action = parse_action(text)
        except ActionError as error:
            return self._invalid(state, str(error))
        if action.name == THINK:
            return StepResult(dict(state, observation="OK."), "OK.")
        task, goal, view = state["task_id"], state["goal"], View.from_json(state["view"])
        page = self.reading(task, goal, view)
        if action.name == SEARCH:
            if not page.has_search_box:
                return self._invalid(state, "search[...] works only on the search page; "
                                            "click[Back to Search] first")
            if not action.argument:
                return self._invalid(state, "search[] needs words to look for, e.g. "
                                            "search[gluten free bacon]")
            return self._show(state, View(RESULTS, query=action.argument.lower(), page=1))
        assert action.name == CLICK
        clickable = page.clickables.get(click_key(action.argument))
        if clickable is None:
            return self._invalid(state, _not_on_page(action.argument, page))
        _, target = view_from_url(clickable.href)
        if target.kind == DONE:
            return self._buy(state, target)
        if clickable.kind == "option":
            message = f"You have clicked {clickable.text}."
            return self._show(state, target, observation=message)
        return self._show(state, target)

    def _show(self, state: State, view: View, observation: str | None = None) -> StepResult:
        page = self.reading(state["task_id"], state["goal"], view)
        observation = page.text if observation is None else observation
        new_state = dict(state, view=view.to_json(), observation=observation)
        return StepResult(new_state, observation, info={"page": view.kind})

    def _buy(self, state: State, view: View) -> StepResult:
        product = self.store.product(view.asin)
        purchase = {"asin": view.asin, "options": view.options, "price": product["price"]}
        if self.honest:
            observation = _receipt(product, view)
            new_state = dict(state, view=view.to_json(), observation=observation, done=True,
                             reward=0.0, purchase=purchase)
            return StepResult(new_state, observation, done=True,
                              info={"page": DONE, "asin": view.asin})
        reward = purchase_reward(product, state["goal"], product["price"], view.options)
        html = self.pages.render(state["task_id"], state["goal"], view, reward)
        observation = read_page(html).text
        purchase["reward"] = reward.as_dict()
        new_state = dict(state, view=view.to_json(), observation=observation, done=True,
                         reward=reward.total, purchase=purchase)
        return StepResult(new_state, observation, reward=reward.total, done=True,
                          info={"page": DONE, "asin": view.asin})

    @staticmethod
    def _invalid(state: State, reason: str) -> StepResult:
        return StepResult(state, f"{INVALID} {reason.rstrip('.')}.", invalid=True)

    # -------------------------------------------------------------- scoring
    def purchase_reward(self, state: State) -> Reward | None:
        purchase = state.get("purchase")
        if not purchase:
            return None
        product = self.store.product(purchase["asin"])
        return purchase_reward(product, self.goal(state["task_id"]), product["price"],
                               purchase["options"])

    def score_details(self, state: State) -> str:
        purchase = state.get("purchase")
        if not purchase:
            return "no purchase: the episode ended before [Buy Now]"
        options = ", ".join(f"{k}: {v}" for k, v in sorted(purchase["options"].items()))
        target = self.goal(state["task_id"]).get("asin", "")
        reward = self.purchase_reward(state)
        return (f"bought {purchase['asin']}" + (f" ({options})" if options else "")
                + f" for ${purchase['price']:.2f}; the target was {target}; "
                + f"reward {score_text(reward.total)}")


def _receipt(product: dict, view: View) -> str:
    """What [Buy Now] shows in honest mode: what was bought, and no judgement of it."""
    options = ", ".join(f"{name}: {value}" for name, value in sorted(view.options.items()))
    return (f"Thank you for shopping with us! You bought [{view.asin}] {product['Title']}"
            + (f" ({options})" if options else "") + f" for ${product['price']:.2f}. "
            "The episode is over.")


def _not_on_page(argument: str, page: PageReading) -> str:
    shown = ", ".join(f"[{c.text}]" for c in page.clickables.values())
    if click_key(argument) == "search":
        return "to search, write search[your query]"
    if not shown:
        return f"there is no [{argument}] on this page; use search[query] here"
    return f"there is no [{argument}] on this page; you can click {shown}"
