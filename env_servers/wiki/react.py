"""ReAct's Wikipedia actions on a corpus, as pure state transitions.

`wiki_step(corpus, page, lookup, text)` applies one Search / Lookup / Finish
to the open page title and lookup cursor and returns what changes:
  * Search[entity]: a found page becomes the open page, its first 5 sentences
    are the observation, and the lookup cursor resets; a miss lists similar
    titles ("Could not find [X]. Similar: [...].") and changes nothing.
  * Lookup[keyword]: the next sentence of the open page containing the keyword,
    "(Result i / n) ...", then "No more results."; the cursor advances on each
    hit and restarts when the keyword changes. Without an open page it is an
    invalid action.
  * Finish[answer]: reported back as `answer`; the caller ends the episode.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from env_servers.wiki.actions import ActionError, invalid_observation, parse_action
from env_servers.wiki.corpus import Corpus
from env_servers.wiki.pages import lookup_observation, not_found_observation


@dataclass(frozen=True)
class WikiStep:
    observation: str
    page: str | None = None
    lookup: dict[str, Any] | None = None   # {"keyword": str, "cursor": int}
    invalid: bool = False
    answer: str | None = None              # set by Finish
    info: dict[str, Any] = field(default_factory=dict)


def _invalid(reason: str, page: str | None, lookup: dict | None) -> WikiStep:
    return WikiStep(invalid_observation(reason), page, lookup, invalid=True)


def wiki_step(corpus: Corpus, page: str | None, lookup: dict[str, Any] | None,
              text: str, max_chars: int = 0) -> WikiStep:
    try:
        action = parse_action(text)
    except ActionError as error:
        return _invalid(str(error), page, lookup)
    if action.verb == "finish":
        return WikiStep("", page, lookup, answer=action.argument,
                        info={"action": "finish", "answer": action.argument})
    if action.verb == "search":
        result = corpus.search(action.argument)
        if result.page is None:
            return WikiStep(not_found_observation(action.argument, result.similar), page, lookup,
                            info={"action": "search", "found": False,
                                  "similar": list(result.similar)})
        return WikiStep(result.page.summary(max_chars), result.page.title, None,
                        info={"action": "search", "found": True, "page": result.page.title})
    if page is None:
        return _invalid("Lookup needs an open page; Search[entity] first", page, lookup)
    opened = corpus.page(page)
    if opened is None:
        return _invalid(f"the page [{page}] is no longer in the corpus; Search again",
                        page, lookup)
    keyword = action.argument
    cursor = lookup["cursor"] if lookup and lookup.get("keyword") == keyword else 0
    matches = opened.matches(keyword)
    observation = lookup_observation(matches, cursor)
    next_cursor = cursor + 1 if cursor < len(matches) else cursor
    return WikiStep(observation, page, {"keyword": keyword, "cursor": next_cursor},
                    info={"action": "lookup", "page": page, "keyword": keyword,
                          "results": len(matches)})
