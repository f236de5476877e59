"""Notebook 07's result class on the published MediaMTX numbers validates and states its headlines."""

from __future__ import annotations

import pytest

from tests.notebooks.results_schemas import validate_object
from throttlelab.analysis.capacity.capacity import compare_variants, project_capacity, unit_costs
from throttlelab.analysis.capacity.capacity_results import capacity_results
from throttlelab.ingest.published.published import load_mediamtx


def test_published_capacity_document():
    costs = unit_costs(load_mediamtx(), unit_col="streams")
    projections = [project_capacity(c, units=100, limit_cores=1.0, n_sim=2000) for c in costs]
    comparison = compare_variants(projections[0], projections[-1], costs[0], costs[-1])
    doc = validate_object(capacity_results(costs, projections, comparison))
    p = {x["variant"]: x for x in doc["projections"]}
    assert round(p["asis"]["cpu_pct_of_limit"]) == 71 and round(p["tobe"]["cpu_pct_of_limit"]) == 52
    assert all(x["cpu_cores"]["low"] <= x["cpu_cores"]["value"] <= x["cpu_cores"]["high"] for x in doc["projections"])
    assert all(x["capacity_units"]["low"] <= x["capacity_units"]["value"] <= x["capacity_units"]["high"]
               for x in doc["projections"])
    assert doc["comparison"]["cpu_change_pct"] < -27 and doc["assumption"] == projections[0].assumption
    assert doc["input"] == {"capacity_path": "published:mediamtx_optimization.csv"} and doc["unit"] == "streams"
    # the parameters the projections were made with, carried by them (not in each projection's JSON)
    assert doc["parameters"] == {"target_units": 100, "limit_cores": 1.0, "threshold": 0.7, "fixed_overhead_max": 0.2,
                                 "noise_cv": 0.1, "n_sim": 2000, "seed": 0, "level": 0.95}
    assert "parameters" not in doc["projections"][0] and "_parameters" not in doc["projections"][0]


def test_projections_made_with_different_parameters_are_refused():
    costs = unit_costs(load_mediamtx(), unit_col="streams")
    projections = [project_capacity(c, units=100, n_sim=500, seed=i) for i, c in enumerate(costs)]
    with pytest.raises(ValueError, match="different parameters"):
        capacity_results(costs, projections, None)


def test_no_variant_is_an_error():
    with pytest.raises(ValueError, match="no variant"):
        capacity_results([], [], None)
