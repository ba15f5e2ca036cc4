"""Reading Wikipedia's HTML (beautifulsoup4): article pages and search results.

A `Special:Search` request answers either with the article (Wikipedia goes
straight to a page whose title matches) or with a result list
(`div.mw-search-result-heading`). A disambiguation page ("... may refer to:")
is read as a miss whose suggestions are the pages it lists.
"""

from __future__ import annotations

from dataclasses import dataclass

from bs4 import BeautifulSoup

from env_servers.wiki.corpus import SIMILAR_SHOWN
from env_servers.wiki.pages import Page, split_sentences

_DROPPED = ("sup.reference", "span.mw-editsection", "style", "script",
            "span.noprint", "sup.noprint")


@dataclass(frozen=True)
class ParsedResponse:
    page: Page | None
    similar: tuple[str, ...] = ()


def _title(soup: BeautifulSoup) -> str:
    heading = soup.find(id="firstHeading")
    if heading is not None:
        return " ".join(heading.get_text(" ").split())
    title = soup.title.get_text() if soup.title else ""
    return title.rsplit(" - Wikipedia", 1)[0].strip()


def _content(soup: BeautifulSoup):
    return soup.select_one("#mw-content-text .mw-parser-output") or soup.select_one(
        "#mw-content-text") or soup


def _is_disambiguation(soup: BeautifulSoup, paragraphs: list[str]) -> bool:
    if soup.select_one("#disambigbox, .dmbox-disambig, #disambig"):
        return True
    return any(p.rstrip().endswith("may refer to:") for p in paragraphs[:3])


def parse_article_or_results(html: str) -> ParsedResponse:
    """The page (title + sentences) of an article, or the titles a search lists."""
    soup = BeautifulSoup(html, "html.parser")
    headings = soup.select("div.mw-search-result-heading")
    if headings or soup.select_one(".mw-search-nonefound, ul.mw-search-results"):
        titles = [" ".join(h.get_text(" ").split()) for h in headings]
        return ParsedResponse(None, tuple(titles[:SIMILAR_SHOWN]))
    content = _content(soup)
    for junk in content.select(", ".join(_DROPPED)):
        junk.decompose()
    paragraphs = [p.get_text() for p in content.find_all("p")]
    paragraphs = [" ".join(p.split()) for p in paragraphs if p.strip()]
    if _is_disambiguation(soup, paragraphs):
        options = [a.get("title") or a.get_text() for a in content.select("ul li a[href]")
                   if (a.get("href") or "").startswith("/wiki/")]
        unique = tuple(dict.fromkeys(o.strip() for o in options if o and ":" not in o))
        return ParsedResponse(None, unique[:SIMILAR_SHOWN])
    sentences = split_sentences(paragraphs)
    if not sentences:
        return ParsedResponse(None, ())
    return ParsedResponse(Page(_title(soup), sentences))
