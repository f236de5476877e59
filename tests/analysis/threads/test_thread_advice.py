"""Thread advice: the thread count per limit and what auto / host cores lose, with intervals or single-number verdicts."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from throttlelab.analysis.runs.runs_input import load_runs
from throttlelab.analysis.threads.thread_advice import advice_sentences, thread_advice

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "runs" / "thread_sweep.csv"


def test_replicated_runs_give_intervals():
    a = thread_advice(load_runs(FIXTURE), metric="wall_seconds", machine_cores=2)
    one = a.filter(pl.col("limit") == "1000m", pl.col("compared") == "auto").row(0, named=True)
    assert one["use_threads"] == "1" and one["change_pct"] > 15
    assert one["ci_low_pct"] > 0 and one["p_value"] < 0.01 and one["verdict"] == "worse"
    assert set(a["compared"]) == {"auto", "host cores (2)"}


def test_published_single_numbers_say_what_they_can():
    a = thread_advice(load_runs("published:automaxprocs"), metric="throughput_rps",
                      advice_metrics=("latency_p999_seconds",))
    assert a["use_threads"].unique().to_list() == ["2"] and a["ci_low_pct"].is_null().all()
    by = {r["metric"]: r for r in a.iter_rows(named=True)}
    assert by["throughput_rps"]["change_pct"] == pytest.approx(-50.37, abs=0.01)
    assert by["latency_p999_seconds"]["change_pct"] == pytest.approx(188.8, abs=0.1)
    assert all(v.startswith("single numbers: clearly worse") for v in a["verdict"])
    [s] = advice_sentences(a)
    assert "use 2 threads" in s and "host cores (24) throughput -50%" in s


def test_false_alarm_and_coverage_of_auto_against_the_chosen_count():
    """Six thread counts, all equal, 3 runs each, 10% log-normal noise: how often is `auto` called worse than the
    count chosen after looking (winner's curse), and how often does its interval cover 0?  Measured here: about 6%
    and 94% (300 tables)."""
    import math

    import numpy as np

    from throttlelab import tables

    rng = np.random.default_rng(5)
    n_sim, worse, cover = 200, 0, 0
    for _ in range(n_sim):
        rows = [{"experiment": "x", "run_id": f"{t}-{r}", "backend": "local", "workload": "svc", "cpu_limit_cores": 1.0,
                 "threads": t, "contention": 0.0, "replicate": r, "status": "ok", "node": "h (2 cpus)",
                 "throughput_rps": 100 * math.exp(rng.normal(0, 0.1))}
                for t in ("1", "2", "4", "8", "16", "auto") for r in range(3)]
        a = thread_advice(tables.conform(pl.DataFrame(rows), "runs"), metric="throughput_rps")
        row = a.filter(pl.col("compared") == "auto").row(0, named=True)
        worse += row["verdict"] == "worse"
        cover += row["ci_low_pct"] <= 0 <= row["ci_high_pct"]
    print(f"auto called worse in {worse / n_sim:.3f}, interval covers 0 in {cover / n_sim:.3f} of {n_sim} tables")
    assert worse / n_sim <= 0.10 and cover / n_sim >= 0.88
