"""Notebook 03's result class built from the published ffmpeg sweep (data/published) validates against the schema."""

from __future__ import annotations

import dataclasses
import inspect

import jsonschema
import pytest

from tests.notebooks.results_schemas import validate_object
import importlib

mod = importlib.import_module("throttlelab.analysis.limits.cpu_limit_results")  # the module: the face exports its function under the same name
from throttlelab.analysis.limits.active_time import fit_active_time
from throttlelab.analysis.limits.cpu_limits import analyse_cpu_limits
from throttlelab.analysis.runs.prepare import prepare_runs
from throttlelab.ingest.published.published import load_ffmpeg_sweep, load_go_active_time


@pytest.fixture(scope="module")
def results():
    prepared = prepare_runs(load_ffmpeg_sweep())
    groups = analyse_cpu_limits(prepared, n_boot=10, n_sim=2000)
    go = load_go_active_time()
    active = mod.active_time_results(go, fit_active_time(go["limit_share"], go["active_over_wall"]))
    return mod.cpu_limit_results(prepared, groups, active_time=active)


def test_published_sweep_gives_a_valid_document_with_its_headlines(results):
    doc = validate_object(results)
    [g] = doc["groups"]
    assert g["dead_zones_primary"] == "dead_zones_with_block"
    [zone] = g["dead_zones_with_block"]["zones"]
    assert 6.0 in zone["limits_cores"] and zone["baseline_label"] == "4000m"
    assert zone["slowdown"]["low"] <= zone["slowdown"]["value"] <= zone["slowdown"]["high"]
    assert zone["slowdown"]["unit"] == "pct" and 0 < zone["slowdown"]["p_value"] < 0.05
    rec = g["recommendation"]
    assert rec["limit_label"] == "12000m"
    assert rec["expected_seconds"]["low"] < rec["expected_seconds"]["value"] < rec["expected_seconds"]["high"]
    assert {f["model"] for f in g["fits"]} == {"amdahl", "usl", "quota"}
    assert all(set(p) >= {"value", "low", "high"} for f in g["fits"] for p in f["parameters"].values())
    assert doc["input"] == {"runs_path": "published:ffmpeg_cpu_limit_sweep.csv"}
    # the parameters the analysis was made with (its arguments and defaults), carried by its groups: no copy
    defaults = {k: v.default for k, v in inspect.signature(analyse_cpu_limits).parameters.items()
                if k not in ("prepared", "metric")}
    assert doc["parameters"] == {"metric": "wall_seconds", **defaults, "n_boot": 10, "n_sim": 2000}
    assert set(doc["parameters"]) == {"metric", "threshold_pct", "knee_tolerance_pct", "alpha", "prior_cv", "n_boot",
                                      "n_sim", "seed", "block"}
    assert [r["limit"] for r in g["limits"]][:2] == ["1000m", "1500m"]


def test_active_time_headline_is_an_estimate_with_its_interval(results):
    sf = results.active_time.slowdown_factor
    assert sf.value > 7 and sf.low < sf.value < sf.high and sf.unit == "ratio"
    assert results.active_time.smallest_limit_share == pytest.approx(0.128)


def test_a_broken_document_does_not_validate(results):
    g = results.groups[0]
    bad = dataclasses.replace(results, groups=(dataclasses.replace(g, dead_zones_primary="pooled"),))
    with pytest.raises(jsonschema.ValidationError):
        validate_object(bad)


def test_groups_of_analyses_with_different_parameters_are_refused():
    prepared = prepare_runs(load_ffmpeg_sweep())
    [a] = analyse_cpu_limits(prepared, n_boot=0, n_sim=500)
    with pytest.raises(ValueError, match="different parameters"):
        mod.cpu_limit_results(prepared, [a, dataclasses.replace(a, parameters={**a.parameters, "alpha": 0.1})])
