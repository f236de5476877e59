"""Notebooks 03 and 04 on a measured service sweep: throughput (higher is better) and p99 latency (lower is better)."""

from __future__ import annotations

from pathlib import Path

from tests.notebooks.results_schemas import validate

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "service_sweep.csv"


def test_03_on_throughput(run_notebook):
    out, results = run_notebook("03_cpu_limits", runs_path=str(FIXTURE), metric="throughput_rps", active_time_path="none",
                                n_boot=20, n_sim=2000)
    validate(results)
    r = results["results"]
    assert r["metric"] == {"name": "throughput_rps", "unit": "req/s", "direction": "higher is better"}
    assert r["parameters"]["metric"] == "throughput_rps" and r["groups"]
    heads = (out / "headlines.json").read_text()
    assert "req/s" in heads and "core-seconds" not in heads


def test_04_on_p99_latency_with_advice(run_notebook):
    out, results = run_notebook("04_thread_counts", runs_path=str(FIXTURE), metric="latency_p99_seconds",
                                advice_metrics="latency_p99_seconds,throughput_rps")
    validate(results)
    r = results["results"]
    assert r["metric"]["name"] == "latency_p99_seconds" and not r["single_number_verdicts"]
    advice = r["thread_advice"]
    assert {a["metric"] for a in advice} == {"latency_p99_seconds", "throughput_rps"}
    assert all(a["ci_low_pct"] is not None and a["p_value"] is not None for a in advice)  # intervals from the runs
    assert any(a["compared"] == "auto (=2)" for a in advice)  # what auto ran with, from threads_effective
