"""Search on the offline index: exact and tolerant title hits, misses with suggestions."""

from __future__ import annotations

import pytest

from env_servers.wiki.titles import base_key, title_key


@pytest.mark.parametrize(("entity", "title"), [
    ("Scott Derrickson", "Scott Derrickson"),          # exact
    ("scott derrickson", "Scott Derrickson"),          # case
    ("  Scott   Derrickson. ", "Scott Derrickson"),    # spacing, punctuation
    ("Scott_Derrickson", "Scott Derrickson"),          # URL-style underscores
    ("Guns N Roses discography", "Guns N' Roses discography"),  # apostrophe
    ("Esma Sultan Mansion", "Esma Sultan Mansion"),
    ("Kucuk Huseyin Pasha", "Küçük Hüseyin Pasha"),    # accents
    ("Etiquette & Espionage", "Etiquette & Espionage"),  # &amp; in the data is decoded
    ("Kiss and Tell", "Kiss and Tell (1945 film)"),    # the only page with that base title
    ("Sinister", "Sinister (film)"),
    ("Ed Wood film", "Ed Wood (film)"),                # suffix written without brackets
    ("Ed Wood", "Ed Wood"),                            # the plain title beats "Ed Wood (film)"
    ("Scott Derrickson (director)", "Scott Derrickson"),  # a suffix the corpus lacks
])
def test_search_finds_pages_tolerantly(corpus, entity, title):
    result = corpus.search(entity)
    assert result.page is not None, result.similar
    assert result.page.title == title


def test_a_found_page_shows_its_first_five_sentences(corpus):
    page = corpus.search("Scott Derrickson").page
    assert page.summary().startswith(
        "Scott Derrickson (born July 16, 1966) is an American director, screenwriter and "
        "producer. He lives in Los Angeles, California.")
    long_page = corpus.page("Robert Nyce")
    assert len(long_page.sentences) == 22
    assert long_page.summary() == " ".join(long_page.sentences[:5])


def test_a_miss_suggests_similar_titles_from_full_text(corpus):
    result = corpus.search("Corliss Archer")
    assert result.page is None
    assert len(result.similar) == 5
    assert {"Meet Corliss Archer", "Meet Corliss Archer (TV series)"} <= set(result.similar)
    # words found nowhere: nothing to suggest
    assert corpus.search("zzqx qqxv").similar == ()


def test_ambiguous_base_titles_are_suggested_first(corpus):
    # Three "Esma Sultan (daughter of ...)" pages and the plain "Esma Sultan" exist:
    # the plain one wins; a query matching only suffixed pages lists them.
    assert corpus.search("Esma Sultan").page.title == "Esma Sultan"
    result = corpus.search("Meet Corliss Archer TV")
    assert result.page is None or result.page.title == "Meet Corliss Archer (TV series)"


def test_page_reads_exact_titles_only(corpus):
    assert corpus.page("Ed Wood (film)").title == "Ed Wood (film)"
    assert corpus.page("ed wood (film)") is None


def test_title_keys():
    assert title_key("Küçük Hüseyin Pasha") == "kucuk huseyin pasha"
    assert title_key("Etiquette &amp; Espionage") == "etiquette espionage"
    assert base_key("Ed Wood (film)") == "ed wood"
    assert base_key("(film)") == "film"   # a title that is only a suffix keeps it
