"""Notebook 04: explicit thread counts (fixture) and the auto-only published data."""

from __future__ import annotations

from pathlib import Path

from tests.notebooks.results_schemas import validate

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "thread_sweep.csv"


def test_04_with_explicit_threads(run_notebook):
    _, results = run_notebook("04_thread_counts", runs_path=str(FIXTURE))
    validate(results)
    r = results["results"]
    assert r["thread_comparison_possible"]
    [g] = r["groups"]
    one = next(b for b in g["best_threads"] if b["limit"] == "1000m")
    assert one["auto_vs_best_ci_pct"]["low"] > 0
    assert one["auto_vs_best_method"].startswith("selection-adjusted")
    probs = one["probability_best"]
    assert abs(sum(probs.values()) - 1) < 1e-9 and max(probs, key=probs.get) == one["best_threads"]
    assert len(g["recommendations"]) == 4


def test_04_on_published_auto_only_data_says_so(run_notebook):
    out, results = run_notebook("04_thread_counts")
    validate(results)
    assert not results["results"]["thread_comparison_possible"]
    assert "only `auto`" in results["results"]["groups"][0]["note"]
    assert "only `auto`" in (out / "headlines.json").read_text()
