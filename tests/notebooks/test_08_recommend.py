"""Notebook 08 on the bundled export: the same decisions through a temporary Prometheus and read directly."""

from __future__ import annotations

import json

import pytest

from tests.notebooks.results_schemas import validate


def _by_pod(results):
    return {r["pod"]: r for r in results["results"]["recommendations"]}


@pytest.mark.prometheus
def test_08_through_a_temporary_prometheus(run_notebook):
    out, results = run_notebook("08_recommend")
    validate(results)
    assert "temporary local Prometheus" in results["results"]["input"]["how"]
    recs = _by_pod(results)
    assert recs["starved-0"]["decision"] == "raise limit" and recs["starved-0"]["recommended_limit_cores"] > 1.5
    assert recs["oversized-0"]["decision"] == "lower limit" and recs["oversized-0"]["recommended_limit_cores"] < 1
    assert recs["wellsized-0"]["decision"] == "keep"
    assert (out / "recommendations.csv").exists() and (out / "headlines.json").exists()


def test_08_read_directly_gives_the_same_answers(run_notebook):
    out, results = run_notebook("08_recommend", use_prometheus=False)
    validate(results)
    recs = _by_pod(results)
    assert results["results"]["input"]["how"].startswith("read directly")
    assert {p: r["decision"] for p, r in recs.items()} == {
        "bursty-0": "raise limit", "nolimit-0": "set limit", "oversized-0": "lower limit", "restarted-0": "keep",
        "starved-0": "raise limit", "wellsized-0": "keep"}

    answer = json.loads((out / "answer.json").read_text())
    assert answer["answer"].startswith("Raise the CPU limit of starved-0/api") and len(answer["answer"].split()) <= 40
    assert "(the bundled sample namespace)" in answer["rests_on"]
    assert json.loads((out / "inputs_read.json").read_text())["inputs"][0].endswith("shop_namespace.om.gz")
