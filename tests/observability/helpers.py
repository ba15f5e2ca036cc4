"""Scraping a service's /metrics and reading its JSON log lines."""

from __future__ import annotations

import json
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def scrape(url: str) -> dict[tuple[str, tuple], float]:
    """Every sample at `url`: (name, sorted label items) -> value."""
    with urllib.request.urlopen(url, timeout=10) as reply:
        text = reply.read().decode()
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def total(samples: dict, name: str, **labels) -> float:
    """The sum of `name`'s samples whose labels include `labels`."""
    wanted = set(labels.items())
    return sum(value for (sample, items), value in samples.items()
               if sample == name and wanted <= set(items))


def json_lines(output: str) -> list[dict]:
    """The JSON objects among a process's output lines (others are skipped)."""
    records = []
    for line in output.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                records.append(json.loads(line))
            except ValueError:
                pass
    return records
