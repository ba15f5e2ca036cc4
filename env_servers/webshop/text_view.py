"""The text an agent sees, read from a page's HTML with beautifulsoup4.

As WebShop's text observations (the format of the LATS and ReAct prompts):
every visible text on its own line, clickable buttons and product ids in
brackets (`[Buy Now]`, `[B078GWRC1J]`), option values in brackets after
their group's name on one line (`size [small][medium]`), the chosen one in
double brackets (`[[medium]]`). Elements marked data-text="skip" are left
out. `read_page` also lists what can be clicked, keyed by lower-cased text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bs4 import BeautifulSoup, NavigableString, Tag

_INVISIBLE = {"style", "script", "head", "title", "meta"}
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Clickable:
    text: str          # as shown
    kind: str          # button | product | option
    href: str
    option: str = ""   # the option group, for kind "option"


@dataclass(frozen=True)
class PageReading:
    text: str
    clickables: dict[str, Clickable]   # lower-cased, space-normalised text -> clickable
    has_search_box: bool


def click_key(text: str) -> str:
    """How a click argument is compared with a page's clickables."""
    return _SPACES.sub(" ", text).strip().lower()


def _click_kind(node: NavigableString) -> Tag | None:
    for parent in node.parents:
        if isinstance(parent, Tag) and parent.has_attr("data-click"):
            return parent
    return None


def _visible(node: NavigableString) -> bool:
    if type(node) is not NavigableString:  # comments, the doctype, CDATA
        return False
    for parent in node.parents:
        if parent.name in _INVISIBLE or (isinstance(parent, Tag)
                                         and parent.get("data-text") == "skip"):
            return False
    return True


def read_page(html: str) -> PageReading:
    """The text observation, the clickables and whether a search box is shown."""
    soup = BeautifulSoup(html, "html.parser")
    lines: list[str] = []
    last_was_option = False
    for node in soup.find_all(string=True):
        text = _SPACES.sub(" ", str(node)).strip()
        if not text or not _visible(node):
            continue
        clickable = _click_kind(node)
        kind = clickable.get("data-click") if clickable is not None else ""
        if kind == "option":
            chosen = "selected" in (clickable.get("class") or [])
            marker = f"[[{text}]]" if chosen else f"[{text}]"
            if lines and not last_was_option:
                lines[-1] += " " + marker
            elif lines:
                lines[-1] += marker
            else:
                lines.append(marker)
            last_was_option = True
            continue
        lines.append(f"[{text}]" if kind else text)
        last_was_option = False
    clickables = {}
    for element in soup.select("[data-click]"):
        kind = element["data-click"]
        if kind == "search":
            continue  # the search button works through search[...], not click[...]
        text = _SPACES.sub(" ", element.get_text()).strip()
        clickables[click_key(text)] = Clickable(text, kind, element.get("href", ""),
                                                element.get("data-option", ""))
    has_search_box = soup.select_one("form#search-form input[name=q]") is not None
    return PageReading("\n".join(lines), clickables, has_search_box)
