"""The shop's HTML pages, rendered from a `View` with Jinja2 templates.

One renderer serves both the Flask site (people in a browser) and the
environment (whose text observation is read back from this same HTML by
text_view). Links are real site URLs (views.view_url). Markup contract the
text view relies on:
  data-click="button|product|option|search"   a clickable, named by its text
  data-option="NAME"                          the option group of an option
  data-text="skip"                            shown to people, left out of text
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import jinja2

from env_servers.webshop.goals import Goal, goal_option_values
from env_servers.webshop.reward import Reward
from env_servers.webshop.store import CatalogStore
from env_servers.webshop.views import (
    DETAIL,
    DETAILS,
    DONE,
    ITEM,
    RESULTS,
    START,
    View,
    view_url,
)

RESULTS_PER_PAGE = 10
TEMPLATES = Path(__file__).with_name("templates")


class PageNotFound(LookupError):
    """The view names a product the catalog does not have."""


def score_text(total: float) -> str:
    return str(round(total, 4))


class PageRenderer:
    """Renders any page of any episode of one catalog."""

    def __init__(self, store: CatalogStore):
        self.store = store
        self.templates = jinja2.Environment(
            loader=jinja2.FileSystemLoader(TEMPLATES),
            autoescape=jinja2.select_autoescape(["html"]),
            trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)

    def render(self, task_id: str, goal: Goal, view: View, reward: Reward | None = None) -> str:
        """The HTML of `view`; `reward` is required for the done page."""
        context: dict[str, Any] = {
            "view": view,
            "instruction": goal["instruction_text"],
            "show_instruction_in_text": view.kind == START,
            "start_url": view_url(task_id, View()),
        }
        if view.kind == START:
            context["search_url"] = view_url(task_id, View(RESULTS))
            return self._render("search.html", context)
        if view.kind == RESULTS:
            return self._render("results.html", {**context, **self._results(task_id, view)})
        product = self.store.product(view.asin)
        if product is None:
            raise PageNotFound(f"no product {view.asin!r} in this catalog")
        context["product"] = product
        if view.kind == ITEM:
            return self._render("item.html", {**context, **self._item(task_id, view, product)})
        if view.kind == DETAIL:
            item = replace(view, kind=ITEM, detail="")
            context["prev_url"] = view_url(task_id, item)
            return self._render("detail.html", context)
        if view.kind == DONE:
            if reward is None:
                raise ValueError("the done page needs the purchase's reward")
            context.update(reward=reward, score=score_text(reward.total), price=product["Price"],
                           goal_attributes=goal.get("attributes") or [],
                           goal_options=goal_option_values(goal))
            return self._render("done.html", context)
        raise ValueError(f"unknown page kind {view.kind!r}")

    def _render(self, name: str, context: dict[str, Any]) -> str:
        return self.templates.get_template(name).render(context)

    def _results(self, task_id: str, view: View) -> dict[str, Any]:
        asins = self.store.search(view.query)
        first = (view.page - 1) * RESULTS_PER_PAGE
        shown = asins[first:first + RESULTS_PER_PAGE]
        results = [{"product": self.store.product(asin),
                    "url": view_url(task_id, View(ITEM, view.query, view.page, asin))}
                   for asin in shown]
        return {
            "total": len(asins),
            "results": results,
            "prev_url": view_url(task_id, replace(view, page=view.page - 1))
            if view.page > 1 else "",
            "next_url": view_url(task_id, replace(view, page=view.page + 1))
            if first + RESULTS_PER_PAGE < len(asins) else "",
        }

    def _item(self, task_id: str, view: View, product: dict) -> dict[str, Any]:
        groups = [{"name": name, "choices": [
            {"value": value, "selected": view.options.get(name) == value,
             "url": view_url(task_id, view.with_option(name, value))}
            for value in values]} for name, values in product.get("options", {}).items()]
        return {
            "option_groups": groups,
            "prev_url": view_url(task_id, View(RESULTS, view.query, view.page)),
            "details": [{"name": name, "url": view_url(task_id, replace(view, kind=DETAIL,
                                                                         detail=name))}
                        for name in DETAILS],
            "buy_url": view_url(task_id, View(DONE, asin=view.asin, options=view.options)),
        }
