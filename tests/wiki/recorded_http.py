"""Recorded Wikipedia responses served by an httpx transport (no network in tests).

The HTML files in fixtures/live/ follow the markup en.wikipedia.org serves
(Vector 2022 skin): articles, Special:Search result lists, a disambiguation
page. `RecordedWikipedia` answers the requests LiveCorpus makes, records them,
and fails the test on any request it has no recording for.
"""

from __future__ import annotations

from pathlib import Path

import httpx

FIXTURES = Path(__file__).parent / "fixtures" / "live"
BASE = "https://en.wikipedia.org"


def _html(name: str) -> httpx.Response:
    return httpx.Response(200, text=(FIXTURES / name).read_text("utf-8"),
                          headers={"content-type": "text/html; charset=UTF-8"})


def _redirect(path: str) -> httpx.Response:
    return httpx.Response(302, headers={"location": BASE + path})


class RecordedWikipedia(httpx.MockTransport):
    def __init__(self, failures: dict[str, list] | None = None):
        self.requests: list[httpx.Request] = []
        self.failures = failures or {}   # search text -> responses/exceptions to give first
        super().__init__(self._answer)

    def searches(self) -> list[str]:
        return [r.url.params.get("search") for r in self.requests
                if r.url.path == "/w/index.php"]

    def _answer(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path, search = request.url.path, request.url.params.get("search")
        pending = self.failures.get(search or path)
        if pending:
            failure = pending.pop(0)
            if isinstance(failure, Exception):
                raise failure
            return failure
        if path == "/w/index.php":
            return {
                "Milhouse": lambda: _redirect("/wiki/Milhouse_Van_Houten"),
                "High Plains": lambda: _redirect("/wiki/High_Plains"),
                "Adam Clayton Powell": lambda: _html("search_adam_clayton_powell.html"),
                "Zzqxv Qqqx": lambda: _html("search_no_results.html"),
            }.get(search, lambda: httpx.Response(500, text=f"no recording for {search!r}"))()
        pages = {"/wiki/Milhouse_Van_Houten": "milhouse_van_houten.html",
                 "/wiki/High_Plains": "high_plains.html"}
        if path in pages:
            return _html(pages[path])
        return httpx.Response(404, text="<html><body><p>Wikipedia does not have an article "
                                        "with this exact name.</p></body></html>")
