"""Notebook 08 on the bundled export: the same decisions through a temporary Prometheus and read directly, and
the same numbers as ``throttlelab recommend`` given the same input (one code path)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.notebooks.results_schemas import validate
from throttlelab.cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "published" / "samples" / "shop_namespace.om.gz"


def _by_pod(results):
    return {r["pod"]: r for r in results["results"]["recommendations"]}


def _cli_json(capsys, *argv) -> list[dict]:
    assert main(["recommend", "--openmetrics", str(SAMPLE), "--namespace", "shop", "--format", "json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def _assert_cli_equals_notebook(capsys, results, *argv):
    """Every field of every row, to the last digit: the CLI's JSON is the notebook's results.json."""
    cli = _cli_json(capsys, *argv)
    assert cli == results["results"]["recommendations"]
    bursty = next(r for r in cli if r["pod"] == "bursty-0")
    assert results["results"]["input"]["observed_hours"] == pytest.approx(26, abs=0.1)  # not the 336 h of 14 days
    return bursty


@pytest.mark.prometheus
def test_08_through_a_temporary_prometheus(run_notebook, capsys):
    out, results = run_notebook("08_recommend")
    validate(results)
    assert "temporary local Prometheus" in results["results"]["input"]["how"]
    recs = _by_pod(results)
    assert recs["starved-0"]["decision"] == "raise limit" and recs["starved-0"]["recommended_limit_cores"] > 1.5
    assert recs["oversized-0"]["decision"] == "lower limit" and recs["oversized-0"]["recommended_limit_cores"] < 1
    assert recs["wellsized-0"]["decision"] == "keep"
    assert (out / "recommendations.csv").exists() and (out / "headlines.json").exists()
    shown = (out.parent / "08_recommend.out.ipynb").read_text()  # the name patterns are text, not HTML tags
    assert "&lt;deployment&gt;-&lt;replicaset hash&gt;" in shown
    bursty = _assert_cli_equals_notebook(capsys, results)
    print(f"bursty-0/batch: request {bursty['recommended_request_cores']}, usage p95 {bursty['usage_p95_cores']:.4f}")


def test_08_read_directly_gives_the_same_answers(run_notebook, capsys):
    out, results = run_notebook("08_recommend", use_prometheus=False)
    validate(results)
    recs = _by_pod(results)
    assert results["results"]["input"]["how"].startswith("read directly")
    assert {p: r["decision"] for p, r in recs.items()} == {
        "bursty-0": "raise limit", "nolimit-0": "set limit", "oversized-0": "lower limit", "restarted-0": "keep",
        "starved-0": "raise limit", "wellsized-0": "keep"}
    _assert_cli_equals_notebook(capsys, results, "--read-directly")

    answer = json.loads((out / "answer.json").read_text())
    assert answer["answer"].split()[0] in ("Raise", "Lower", "Set", "Keep") and len(answer["answer"].split()) <= 40
    assert "(the bundled sample namespace)" in answer["rests_on"]
    assert json.loads((out / "inputs_read.json").read_text())["inputs"][0].endswith("shop_namespace.om.gz")


def test_08_shows_a_cluster_by_workload_as_the_cli_does(run_notebook, capsys, cluster_export):
    path, _ = cluster_export
    out, results = run_notebook("08_recommend", openmetrics_path=str(path), namespace="", use_prometheus=False)
    validate(results)
    rows = results["results"]["recommendations"]
    assert len(rows) == 8 and {r["workload_kind"] for r in rows} == {"Deployment", "StatefulSet", "DaemonSet",
                                                                       "CronJob", "Pod", "Job"}
    api = next(r for r in rows if r["workload"] == "api")
    assert api["runtime_advice"]["threads_seen"] == 8 and api["runtime_advice"]["action"] == "set threads"
    assert [r["hpa"]["name"] for r in rows if r["hpa"]] == ["web", "web"]
    shown = (out.parent / "08_recommend.out.ipynb").read_text()  # the notebook shows the sentences and the rules
    assert api["runtime_advice"]["reason"].split(":")[0] in shown and "HPA web scales on CPU" in shown
    assert "automaxprocs_gomaxprocs.csv" in shown and "llama.cpp/ollama" in shown
    assert main(["recommend", "--openmetrics", str(path), "--read-directly", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == rows
