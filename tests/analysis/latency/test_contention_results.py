"""Notebook 05's result class on the published contention table: the +361% and the take-off share as estimates."""

from __future__ import annotations

import doctest

import pytest

from tests.notebooks.results_schemas import validate_object
from throttlelab.analysis.latency import contention_paper as cp
import importlib

mod = importlib.import_module("throttlelab.analysis.latency.contention_results")  # the module: the face exports its function under the same name
from throttlelab.analysis.latency.response_curves import fit_summary
from throttlelab.ingest.published.published import load_contention


@pytest.fixture(scope="module")
def published():
    data = load_contention()
    return cp.paper_table1(data), fit_summary(data, n_boot=30)[1]


def test_published_table_headlines(published):
    doc = validate_object(mod.contention_results(*published))
    inc, knee = doc["headline_increase"], doc["headline_knee"]
    assert inc["low"] <= 361 <= inc["high"] and inc["unit"] == "pct"
    assert 0.3 < knee["value"] < 0.6 and knee["low"] <= knee["value"] <= knee["high"]
    assert "bootstrap" in knee["method"] and "R²" in knee["note"] and knee["n_samples"] == 21
    assert doc["paper_table1"]["cells"] == 21 and doc["paper_table1"]["consistent"] == 18
    assert len(doc["paper_table1"]["inconsistent_cells"]) == 3
    assert set(doc["published_fit"]) == {"hyperbolic", "mm1"}
    assert doc["measured"] is None and doc["measured_workers"] is None


def test_worker_section_keeps_only_the_note_when_there_is_nothing_to_compare(published):
    r = mod.contention_results(*published, workers={"note": "not enough data to decide: one worker count"})
    assert r.measured_workers.note == "not enough data to decide: one worker count"
    assert r.measured_workers.share is None and len(r.measured_workers.summary) == 0
    validate_object(r)


def test_docstring_example():
    assert doctest.testmod(mod).failed == 0
