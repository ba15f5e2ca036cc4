"""`lats webshop site` serves the shop; `lats webshop build` reports the catalog."""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.request

import pytest
from click.testing import CliRunner

from env_servers.webshop.cli import webshop


def test_build_reports_the_cached_catalog(store):
    result = CliRunner().invoke(webshop, ["build"])
    assert result.exit_code == 0, result.output
    assert f"catalog {store.catalog_id} (generated, seed 0)" in result.output
    assert f"{store.product_count} products, {store.goal_count} goals" in result.output
    assert str(store.path) in result.output


def test_build_names_a_missing_instructions_file(tmp_path, monkeypatch):
    monkeypatch.setenv("LATS_WEBSHOP_GOALS", str(tmp_path / "nope.json"))
    result = CliRunner().invoke(webshop, ["build"])
    assert result.exit_code != 0 and "LATS_WEBSHOP_GOALS" in result.output


@pytest.mark.timeout(60)
def test_site_serves_pages_until_stopped(store):
    process = subprocess.Popen(
        [sys.executable, "-m", "env_servers.webshop.cli", "site", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = process.stdout.readline()
        base = re.search(r"listening on (http://\S+?)/ ", line).group(1)
        with urllib.request.urlopen(f"{base}/fixed_0", timeout=10) as response:
            page = response.read().decode()
        assert response.status == 200 and 'id="search_input"' in page
        with urllib.request.urlopen(f"{base}/", timeout=10) as response:
            assert "fixed_49" in response.read().decode()
    finally:
        process.terminate()
        process.wait(10)
