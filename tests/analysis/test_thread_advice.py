"""Thread advice: the thread count per limit and what auto / host cores lose, with intervals or single-number verdicts."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from throttlelab.analysis.runs_input import load_runs
from throttlelab.analysis.thread_advice import advice_sentences, thread_advice

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "thread_sweep.csv"


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
