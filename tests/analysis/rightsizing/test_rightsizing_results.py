"""Notebook 08's result class on the bundled OpenMetrics sample (read directly) validates against the schema."""

from __future__ import annotations

from pathlib import Path

from tests.notebooks.results_schemas import validate_object
from throttlelab.analysis.rightsizing.recommendation import Settings
from throttlelab.analysis.rightsizing.rightsizing_parallel import rightsize_all
from throttlelab.analysis.rightsizing.rightsizing_results import rightsizing_results
from throttlelab.ingest.prometheus.prometheus_local import read_source

SAMPLE = Path(__file__).resolve().parents[3] / "data" / "published" / "samples" / "shop_namespace.om.gz"


def test_sample_namespace_document():
    fetched, source, how = read_source(openmetrics_path=str(SAMPLE), use_prometheus=False, namespace="shop")
    settings = Settings(throttle_target=0.05)
    recs = rightsize_all(fetched.containers, settings)
    doc = validate_object(rightsizing_results(recs, settings, source=source, how=how,
                                              window=(fetched.start, fetched.end, fetched.step_s),
                                              queries=fetched.queries, namespace="shop", min_history="24h"))
    assert len(doc["recommendations"]) == len(fetched.containers) > 0
    assert doc["input"]["how"].startswith("read directly") and doc["input"]["end"] > doc["input"]["start"]
    assert doc["parameters"] == {"throttle_target": 0.05, "limit_policy": "target", "min_history": "24h"}
    limited = [r for r in doc["recommendations"] if r["recommended_limit_cores"] is not None]
    assert limited and all(r["recommended_limit_low"] <= r["recommended_limit_cores"]
                           <= (r["recommended_limit_high"] if r["recommended_limit_high"] is not None else float("inf"))
                           for r in limited if r["recommended_limit_low"] is not None)
    # the sample has node sizes: a starved container's interval ends at its node's size, and the reason says so
    starved = [r for r in doc["recommendations"] if r["demand_censored"]]
    assert starved and all(r["node_cores"] == r["recommended_limit_high"] == 2.0 and r["recommended_limit_cores"] <= 2.0
                           and "uncapped" not in r["reason"] for r in starved)
