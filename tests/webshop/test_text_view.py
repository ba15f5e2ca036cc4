"""The text observation is read from the page's HTML (beautifulsoup4)."""

from __future__ import annotations

from env_servers.webshop.text_view import read_page
from env_servers.webshop.views import ITEM, RESULTS, View, view_from_url, view_url

PAGE = """<!DOCTYPE html>
<html><head><title>ignored</title><style>.x {}</style><script>var y;</script></head>
<body>
  <div data-text="skip"><p>Instruction: hidden from the agent</p></div>
  <!-- a comment -->
  <a data-click="button" href="/fixed_1">Back to Search</a>
  <p>Some   plain
     text</p>
  <div><span>size</span>
    <a data-click="option" data-option="size" class="option" href="/s">small</a><a
       data-click="option" data-option="size" class="option selected" href="/m">medium</a>
  </div>
  <a class="product-link" data-click="product" href="/fixed_1/item/B000000001">B000000001</a>
  <form id="search-form"><input name="q"><button data-click="search">Search</button></form>
</body></html>"""


def test_text_marks_buttons_options_and_the_chosen_option():
    reading = read_page(PAGE)
    assert reading.text.split("\n") == [
        "[Back to Search]", "Some plain text", "size [small][[medium]]", "[B000000001]",
        "[Search]"]


def test_clickables_are_named_by_their_text_and_keep_their_link():
    reading = read_page(PAGE)
    assert set(reading.clickables) == {"back to search", "small", "medium", "b000000001"}
    assert reading.clickables["medium"].option == "size"
    assert reading.clickables["b000000001"].href == "/fixed_1/item/B000000001"
    assert reading.has_search_box
    assert not read_page("<p>no form</p>").has_search_box


def test_urls_and_views_round_trip():
    views = [View(), View(RESULTS, "gluten free bacon & eggs", 3),
             View(ITEM, "x", 2, "B0KE05TY10", {"size": "4 ounce (pack of 2)", "color": "navy"}),
             View("detail", "x", 1, "B0KE05TY10", {}, "Features"),
             View("done", asin="B0KE05TY10", options={"size": "m"})]
    for view in views:
        assert view_from_url(view_url("fixed_7", view)) == ("fixed_7", view)


def test_the_rendered_pages_text_matches_the_papers_format(shop):
    html = shop.page_html("fixed_0", View(RESULTS, "boat shoes", 2))
    lines = read_page(html).text.split("\n")
    assert lines[:4] == ["[Back to Search]", "Page 2 (Total results: 50)", "[< Prev]", "[Next >]"]
    assert "Instruction:" not in lines, "only the search page shows the instruction"
