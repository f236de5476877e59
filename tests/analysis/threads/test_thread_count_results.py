"""Notebook 04's result class built from the thread-sweep fixture validates against the generated schema."""

from __future__ import annotations

import inspect
from pathlib import Path

import jsonschema
import pytest

from tests.notebooks.results_schemas import validate_object
from throttlelab.analysis.runs.prepare import prepare_runs
from throttlelab.analysis.runs.runs_input import load_runs
from throttlelab.analysis.threads.thread_count_results import thread_count_results
from throttlelab.analysis.threads.thread_advice import thread_advice
from throttlelab.analysis.threads.thread_counts import analyse_thread_counts

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "runs" / "thread_sweep.csv"


@pytest.fixture(scope="module")
def built():
    prepared = prepare_runs(load_runs(str(FIXTURE)))
    return prepared, analyse_thread_counts(prepared.runs)


def test_fixture_gives_a_valid_document_with_auto_against_best(built):
    prepared, analyses = built
    doc = validate_object(thread_count_results(prepared, analyses, runs_path=str(FIXTURE)))
    assert doc["thread_comparison_possible"] and doc["input"]["runs_path"].endswith("thread_sweep.csv")
    assert doc["runs"]["excluded_by_reason"] == {"status failed": 1, "warm-up run": 1}
    [g] = doc["groups"]
    one = next(c for c in g["best_threads"] if c["limit_label"] == "1000m")
    assert one["auto_vs_best"]["low"] > 0 and one["auto_vs_best"]["p_value"] < 0.05  # auto oversubscribes 1 core
    assert len(g["recommendations"]) == 4 and g["noise"]["assumption_based"] is False
    assert doc["single_number_verdicts"] == []
    # the parameters the analysis was made with (here its defaults), carried by its groups: no copy by the caller
    defaults = {k: v.default for k, v in inspect.signature(analyse_thread_counts).parameters.items()
                if k not in ("runs", "metric")}
    assert doc["parameters"] == {"metric": "wall_seconds", **defaults, "advice_metrics": []}
    assert doc["parameters"]["alpha"] == 0.05


def test_published_auto_only_data_says_no_comparison_is_possible():
    prepared = prepare_runs(load_runs(""))
    doc = validate_object(thread_count_results(prepared, analyse_thread_counts(prepared.runs)))
    assert doc["thread_comparison_possible"] is False and "only `auto`" in doc["groups"][0]["note"]


def test_a_group_without_its_noise_model_does_not_validate(built):
    import dataclasses

    prepared, analyses = built
    r = thread_count_results(prepared, analyses)
    bad = dataclasses.replace(r, groups=(dataclasses.replace(r.groups[0], noise=None),))
    with pytest.raises(jsonschema.ValidationError):
        validate_object(bad)



def test_parameters_come_from_the_analysis_and_the_advice_table(built):
    prepared, analyses = built
    [a] = analyse_thread_counts(prepared.runs, alpha=0.1, n_sim=500)
    r = thread_count_results(prepared, [a])  # no advice: no further metric
    assert (r.parameters["alpha"], r.parameters["n_sim"], r.parameters["advice_metrics"]) == (0.1, 500, [])
    advice = thread_advice(load_runs(str(FIXTURE)), metric="wall_seconds", advice_metrics=("cpu_seconds",),
                           analyses=analyses)
    assert set(advice["metric"]) == {"wall_seconds", "cpu_seconds"}
    assert thread_count_results(prepared, analyses, thread_advice=advice).parameters["advice_metrics"] == ["cpu_seconds"]
    with pytest.raises(ValueError, match="different parameters"):
        thread_count_results(prepared, [a, analyses[0]])
