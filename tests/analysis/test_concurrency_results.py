"""Notebook 06's result class on the published k6 data: the semaphore headlines are numbers with intervals."""

from __future__ import annotations

import doctest

import polars as pl

from tests.notebooks.results_schemas import validate_object
from throttlelab.analysis import concurrency_results as mod
from throttlelab.ingest.published import load_semaphore


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


def test_measured_section_counts_requests_or_keeps_the_note():
    requests = pl.DataFrame({"status": ["ok", "ok", "timeout"]})
    assert mod.measured_section(requests, {"note": "not enough data to decide"}) == {
        "requests": 3, "by_status": {"ok": 2, "timeout": 1}, "note": "not enough data to decide"}
    tests = pl.DataFrame({"verdict": ["better", "better", "worse"]})
    m = mod.measured_section(requests, {"base": "a", "other": "b", "tests": tests})
    assert m["verdicts"] == {"better": 2, "worse": 1} and m["base"] == "a"


def test_docstring_example():
    assert doctest.testmod(mod).failed == 0
