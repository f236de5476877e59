"""Notebook 06's result class on the published k6 data: the semaphore headlines are numbers with intervals."""

from __future__ import annotations

import doctest


from tests.notebooks.results_schemas import validate_object
import importlib

mod = importlib.import_module("throttlelab.analysis.latency.concurrency_results")  # the module: the face exports its function under the same name
from throttlelab.ingest.published.published import load_semaphore


def test_published_semaphore_headlines():
    doc = validate_object(mod.concurrency_results(load_semaphore()))
    avg, p95 = doc["headline_avg_total_30vus"], doc["headline_p95_total_30vus"]
    assert round(avg["value"]) == -63 and avg["low"] <= avg["value"] <= avg["high"]  # mean total time at 30 VUs
    assert round(p95["value"]) == -55 and p95["low"] <= p95["value"] <= p95["high"]
    assert p95["p_value"] is None and "one k6 run" in p95["note"] and p95["unit"] == "pct"
    assert doc["wiki_table"]["verdicts"] == {"close": 28, "inconsistent": 17, "reproduced": 45}
    assert len(doc["wiki_table"]["inconsistent"]) == 17
    assert doc["measured"] is None and doc["live_sweep"] is None
    assert [r["load"] for r in doc["workers12_total_avg"]] == sorted(r["load"] for r in doc["workers12_total_avg"])


def test_docstring_example():
    assert doctest.testmod(mod).failed == 0
