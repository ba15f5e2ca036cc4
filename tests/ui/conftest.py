"""Headless Chromium for the run viewer's browser tests, and where screenshots go."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.skip("needs Debian's chromium and chromium-driver (installed by make setup)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.TemporaryDirectory(prefix="viewer-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1500,1000",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile.name}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
    profile.cleanup()


@pytest.fixture
def screenshot(browser, tmp_path):
    """Saves the page as NAME.png in the test's tmp dir and in test-artifacts/."""
    def save(name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = tmp_path / f"{name}.png"
        browser.save_screenshot(str(path))
        shutil.copy(path, ARTIFACTS / path.name)
        return path

    return save
