"""Which page an episode shows (`View`) and the site's URL for each page.

The URL scheme is shared by the Flask site (its routes) and the environment
(a click follows the link's href), so the two cannot drift apart:

  /<task>                                      search page
  /<task>/search?q=QUERY&page=N                results, 10 per page
  /<task>/item/<asin>?q=&page=&options=JSON    item page, options chosen so far
  /<task>/item/<asin>/<detail>?q=&page=&options=   Description | Features | Reviews
  /<task>/buy/<asin>?options=JSON              purchase (done) page
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map, Rule

START, RESULTS, ITEM, DETAIL, DONE = "start", "results", "item", "detail", "done"
DETAILS = ("Description", "Features", "Reviews")

URL_MAP = Map([
    Rule("/<task_id>", endpoint=START),
    Rule("/<task_id>/search", endpoint=RESULTS),
    Rule("/<task_id>/item/<asin>", endpoint=ITEM),
    Rule("/<task_id>/item/<asin>/<any(Description, Features, Reviews):detail>", endpoint=DETAIL),
    Rule("/<task_id>/buy/<asin>", endpoint=DONE),
])


class BadPageAddress(ValueError):
    """A URL that names no page of the site (the message says why)."""


@dataclass(frozen=True)
class View:
    """One page of one episode: JSON-serialisable, the environment's state."""

    kind: str = START
    query: str = ""
    page: int = 1
    asin: str = ""
    options: dict[str, str] = field(default_factory=dict)
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> View:
        return cls(kind=str(data["kind"]), query=str(data.get("query", "")),
                   page=int(data.get("page", 1)), asin=str(data.get("asin", "")),
                   options={str(k): str(v) for k, v in dict(data.get("options", {})).items()},
                   detail=str(data.get("detail", "")))

    def with_option(self, name: str, value: str) -> View:
        return replace(self, options={**self.options, name: value})


def _options_arg(options: dict[str, str]) -> str:
    return json.dumps(options, sort_keys=True, separators=(",", ":"))


def view_url(task_id: str, view: View) -> str:
    """The site path of `view` in episode `task_id`."""
    adapter = URL_MAP.bind("localhost")
    values: dict[str, Any] = {"task_id": task_id}
    if view.kind in (RESULTS, ITEM, DETAIL):
        values.update(q=view.query, page=view.page)
    if view.kind in (ITEM, DETAIL, DONE):
        values.update(asin=view.asin, options=_options_arg(view.options))
    if view.kind == DETAIL:
        values["detail"] = view.detail
    return adapter.build(view.kind, values)


def view_from_url(url: str) -> tuple[str, View]:
    """(task id, view) of a site URL; BadPageAddress if it names no page."""
    parts = urlsplit(url)
    try:
        endpoint, arguments = URL_MAP.bind("localhost").match(parts.path, method="GET")
    except HTTPException as error:
        raise BadPageAddress(f"{parts.path} is not a page of the shop") from error
    return arguments["task_id"], view_from_arguments(endpoint, arguments, _query(parts.query))


def view_from_arguments(endpoint: str, arguments: dict[str, Any],
                        query: dict[str, str]) -> View:
    """The view a route's path arguments and query string describe."""
    try:
        page = max(1, int(query.get("page", "1")))
    except ValueError:
        raise BadPageAddress(f"page must be a whole number, not {query.get('page')!r}") from None
    try:
        options = json.loads(query.get("options") or "{}")
    except ValueError:
        raise BadPageAddress("options must be a JSON object") from None
    if not isinstance(options, dict):
        raise BadPageAddress("options must be a JSON object")
    options = {str(k): str(v) for k, v in options.items()}
    text = query.get("q", "")
    if endpoint == START:
        return View()
    if endpoint == RESULTS:
        return View(RESULTS, query=text, page=page)
    if endpoint == DONE:
        return View(DONE, asin=arguments["asin"], options=options)
    return View(endpoint, query=text, page=page, asin=arguments["asin"], options=options,
                detail=arguments.get("detail", ""))


def _query(query_string: str) -> dict[str, str]:
    return dict(parse_qsl(query_string, keep_blank_values=True))
