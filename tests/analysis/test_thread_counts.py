"""Thread counts on the runs fixture with explicit threads, and on auto-only data."""

from __future__ import annotations

from pathlib import Path

import pytest

from throttlelab.analysis.prepare import prepare_runs
from throttlelab.analysis.runs_input import load_runs
from throttlelab.analysis.thread_counts import analyse_thread_counts

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "thread_sweep.csv"


def test_best_thread_count_and_auto_comparison():
    [a] = analyse_thread_counts(prepare_runs(load_runs(FIXTURE)).runs)
    assert a.has_explicit_threads and not a.noise.assumption_based
    by = {c.limit_label: c for c in a.limits}
    # At 1 core, one thread is best and auto (8 threads) is significantly slower.
    one = by["1000m"]
    assert one.best_threads in one.near_best_threads and "1" in one.near_best_threads
    assert one.auto_vs_best_pct > 15 and one.auto_vs_best_p_value < 0.01
    assert one.auto_vs_best_ci_pct.low > 0
    assert one.best_seconds_ci.low < one.best_seconds < one.best_seconds_ci.high
    # At 6 cores auto (8) is as good as the best explicit count.
    assert by["6000m"].auto_vs_best_p_value > 0.05
    rec = a.recommendations()
    assert rec.columns == ["group", "limit", "limit_cores", "threads", "expected_seconds", "expected_seconds_ci_low",
                           "expected_seconds_ci_high", "core_seconds"]
    assert rec["core_seconds"].to_list()[0] == pytest.approx(rec["expected_seconds"].to_list()[0])


def test_auto_only_says_so():
    [a] = analyse_thread_counts(prepare_runs(load_runs("")).runs)
    assert not a.has_explicit_threads and "only `auto`" in a.note
    assert all(c.best_threads is None and c.recommended_threads == "auto" for c in a.limits)
    assert a.table().height == len(a.limits)
