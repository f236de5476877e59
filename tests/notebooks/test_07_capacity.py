"""Notebook 07 reproduces the MediaMTX report's projection (100 streams: 71% asis, 52% tobe)."""

from __future__ import annotations

from tests.notebooks.results_schemas import validate


def test_07_on_published_data(run_notebook):
    _, results = run_notebook("07_capacity", n_sim=2000)
    validate(results)
    p = {x["variant"]: x for x in results["results"]["projections"]}
    assert round(p["asis"]["cpu_pct_of_limit"]) == 71 and round(p["tobe"]["cpu_pct_of_limit"]) == 52
    assert results["results"]["comparison"]["cpu_change_pct"] < -27
    assert "assumed" in results["results"]["assumption"]
