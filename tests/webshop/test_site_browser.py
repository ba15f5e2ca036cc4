"""A person's path through the Flask site in a real browser (headless Chromium):
search -> results -> item -> options -> Buy Now, and the score shown.

Needs Debian's `chromium` and `chromium-driver` (the project's setup installs
them); skipped with the reason if they are absent.
"""

from __future__ import annotations

import shutil
import tempfile

import pytest

from env_servers.webshop.site import serve_site

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="needs Debian's chromium and chromium-driver (installed by make setup)")


@pytest.fixture(scope="module")
def site(shop):
    server = serve_site(shop, "127.0.0.1", 0)
    yield f"http://127.0.0.1:{server.port}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.TemporaryDirectory(prefix="webshop-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile.name}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
    profile.cleanup()


@pytest.mark.timeout(120)
def test_a_person_searches_picks_options_and_buys(site, browser, shop):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    goal = shop.goal("fixed_0")
    target = shop.store.product(goal["asin"])
    browser.get(f"{site}/")
    browser.find_element(By.LINK_TEXT, "fixed_0").click()
    assert goal["instruction_text"] in browser.find_element(By.ID, "instruction-text").text

    box = browser.find_element(By.ID, "search_input")
    box.send_keys(target["Title"])
    browser.find_element(By.CSS_SELECTOR, "#search-form button").click()
    # a form submit returns before the next page has loaded: wait for it
    WebDriverWait(browser, 30).until(lambda d: "Total results" in d.page_source)
    assert "Page 1 (Total results: 50)" in browser.page_source
    while not browser.find_elements(By.LINK_TEXT, target["asin"]):
        browser.find_element(By.LINK_TEXT, "Next >").click()
    browser.find_element(By.LINK_TEXT, target["asin"]).click()
    assert browser.find_element(By.CSS_SELECTOR, "h2.title").text == target["Title"]

    for value in goal["goal_options"].values():
        browser.find_element(By.XPATH, f"//a[@data-click='option'][normalize-space()='{value}']"
                             ).click()
        chosen = browser.find_elements(By.CSS_SELECTOR, "a.option.selected")
        assert value in [element.text for element in chosen]
    assert len(browser.find_elements(By.CSS_SELECTOR, "a.option.selected")) == \
        len(goal["goal_options"])

    browser.find_element(By.LINK_TEXT, "Features").click()
    assert target["BulletPoints"][0] in browser.page_source
    browser.find_element(By.LINK_TEXT, "< Prev").click()
    browser.find_element(By.LINK_TEXT, "Buy Now").click()
    assert browser.find_element(By.TAG_NAME, "h1").text == "Thank you for shopping with us!"
    assert browser.find_element(By.ID, "score").text == "Your score (min 0.0, max 1.0): 1.0"


@pytest.mark.timeout(60)
def test_the_wrong_option_shows_a_lower_score(site, browser, shop):
    from selenium.webdriver.common.by import By

    goal = shop.goal("fixed_0")
    target = shop.store.product(goal["asin"])
    name, wanted = next(iter(goal["goal_options"].items()))
    other = next(v for v in target["options"][name] if v != wanted)
    browser.get(f"{site}/fixed_0/item/{target['asin']}?q=x&page=1")
    browser.find_element(By.XPATH, f"//a[@data-click='option'][normalize-space()='{other}']"
                         ).click()
    browser.find_element(By.LINK_TEXT, "Buy Now").click()
    score = float(browser.find_element(By.ID, "score").text.rsplit(":", 1)[1])
    assert 0 < score < 1
