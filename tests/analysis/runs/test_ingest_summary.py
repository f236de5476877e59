"""Notebook 02's result class: every input line used or counted as skipped, throttling per limit, valid JSON."""

from __future__ import annotations

import doctest
from pathlib import Path

from tests.notebooks.results_schemas import validate_object
import importlib

mod = importlib.import_module("throttlelab.analysis.runs.ingest_summary")  # the module: the face exports its function under the same name
from throttlelab.ingest.detect import read_any

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "ingest"


def test_mixed_inputs_are_accounted_for():
    paths = [(FIX / "good_v2.log", "monitor"), (FIX / "bad" / "garbage_lines.log", "monitor"),
             (FIX / "semaphore__vus10.k6.json", "k6-json")]
    results = [(str(p), f, read_any(str(p), f, tz="Asia/Seoul")) for p, f in paths]
    doc = validate_object(mod.ingest_summary(results))
    assert [i["format"] for i in doc["inputs"]] == ["monitor", "monitor", "k6-json"]
    assert doc["lines_skipped"] == sum(i["lines_skipped"] for i in doc["inputs"]) > 0
    assert doc["lines_total"] == sum(i["lines_used"] + i["lines_skipped"] for i in doc["inputs"])
    assert doc["skipped_by_reason"]["not JSON"] == 1 and doc["samples"] > 0
    assert all(0 <= r["throttled_ratio"] <= 1 for r in doc["by_limit"] if r["throttled_ratio"] is not None)


def test_no_monitor_input_has_no_samples():
    p = str(FIX / "semaphore__vus10.k6.json")
    s = mod.ingest_summary([(p, "k6-json", read_any(p, "k6-json"))])
    assert s.samples == 0 and s.intervals == 0 and s.by_limit.height == 0
    assert set(mod.merge_by_table([(p, "k6-json", read_any(p, "k6-json"))])) == {"requests"}


def test_docstring_example():
    assert doctest.testmod(mod).failed == 0
