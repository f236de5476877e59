"""Notebook 04: explicit thread counts (fixture) and the auto-only published data."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.notebooks.results_schemas import validate

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "thread_sweep.csv"


def test_04_with_explicit_threads(run_notebook):
    _, results = run_notebook("04_thread_counts", runs_path=str(FIXTURE))
    validate(results)
    r = results["results"]
    assert r["thread_comparison_possible"]
    [g] = r["groups"]
    one = next(b for b in g["best_threads"] if b["limit_label"] == "1000m")
    assert one["auto_vs_best"]["low"] > 0
    assert one["auto_vs_best"]["method"].startswith("Tukey-Kramer")
    probs = one["probability_best"]
    assert abs(sum(probs.values()) - 1) < 1e-9 and max(probs, key=probs.get) == one["best_threads"]
    assert len(g["recommendations"]) == 4
    # one interval per number: the thread advice shows auto's change with the analysis' own interval and p-value
    advice = next(a for a in r["thread_advice"] if a["limit"] == "1000m" and a["compared"].startswith("auto"))
    e = one["auto_vs_best"]
    assert (advice["change_pct"], advice["ci_low_pct"], advice["ci_high_pct"], advice["p_value"]) == pytest.approx(
        (e["value"], e["low"], e["high"], e["p_value"]))
    assert e["low"] <= e["value"] <= e["high"]


def test_04_on_published_auto_only_data_says_so(run_notebook):
    out, results = run_notebook("04_thread_counts")
    validate(results)
    assert not results["results"]["thread_comparison_possible"]
    assert "only `auto`" in results["results"]["groups"][0]["note"]
    assert "only `auto`" in (out / "headlines.json").read_text()


def test_04_on_the_automaxprocs_table_names_what_clearly_loses(run_notebook):
    """One number per cell: 24 threads clearly loses throughput, 3 and 4 cannot be told from 2; no invented noise."""
    out, results = run_notebook("04_thread_counts", runs_path="published:automaxprocs", metric="throughput_rps",
                                advice_metrics="throughput_rps,latency_p999_seconds")
    validate(results)
    r = results["results"]
    assert r["metric"] == {"name": "throughput_rps", "unit": "req/s", "direction": "higher is better"}
    assert r["parameters"]["metric"] == "throughput_rps" and r["parameters"]["advice_metrics"] == ["latency_p999_seconds"]
    verdicts = {v["threads"]: v["verdict"] for v in r["single_number_verdicts"]}
    assert verdicts["24"] == "clearly worse" and verdicts["3"] == verdicts["4"] == "cannot be told apart"
    assert verdicts["1"] == verdicts["8"] == "undecided"
    advice = {(a["metric"], a["compared"]): a for a in r["thread_advice"]}
    host = advice[("latency_p999_seconds", "host cores (24)")]
    assert host["use_threads"] == "2" and host["change_pct"] > 150 and host["ci_low_pct"] is None
    heads = (out / "headlines.json").read_text()
    assert "2 threads measured best, not decided" in heads and "24 (-50%" in heads
    # one number per cell: no probability or interval, near-best never lists what a verdict calls clearly worse,
    # every number in req/s and the metric's own change
    [b] = r["groups"][0]["best_threads"]
    assert b["probability_best"] is None and b["best"]["low"] is None and b["best"]["unit"] == "req/s"
    assert b["best"]["value"] == pytest.approx(44715.07)
    assert "24" not in b["near_best_threads"] and {"2", "3", "4"} <= set(b["near_best_threads"])
    clearly = {v["threads"] for v in r["single_number_verdicts"] if v["verdict"] == "clearly worse"}
    assert clearly and not clearly & set(b["near_best_threads"])
    assert next(v for v in r["single_number_verdicts"] if v["threads"] == "24")["change_pct"] == pytest.approx(-50.37,
                                                                                                             abs=0.01)
    answer = (out / "answer.json").read_text()
    assert "not yet clear" in answer and "probability" not in answer  # one run per setting: nothing decided


def test_04_on_a_zero_noise_metric_says_the_differences_are_exact(run_notebook):
    """cpu_seconds of the fixture is identical in every replicate: no zero-width interval, the method says why."""
    out, results = run_notebook("04_thread_counts", runs_path=str(FIXTURE), metric="cpu_seconds")
    validate(results)
    [g] = results["results"]["groups"]
    assert "run-to-run noise is zero" in g["note"] and "deterministic" in g["method"]
    for b in g["best_threads"]:
        assert b["noise_source"] == "zero" and b["auto_vs_best"]["low"] is None and b["best"]["low"] is None
        assert b["auto_vs_best"]["method"].startswith("exact difference")
    assert "exact: zero run-to-run noise" in (out / "headlines.json").read_text()


def test_04_names_the_per_limit_noise_procedure(run_notebook):
    _, results = run_notebook("04_thread_counts", runs_path=str(FIXTURE))
    [g] = results["results"]["groups"]
    assert "run-to-run noise per limit" in g["method"] and "Tukey-Kramer" in g["method"]
    assert all(b["noise_source"] in ("own cells", "trend across limits", "pooled across limits")
               for b in g["best_threads"])
