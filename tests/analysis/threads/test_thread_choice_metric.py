"""One limit's thread choice in the metric's own unit: values, changes and intervals converted once, ends in order."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from throttlelab.analysis.threads import thread_choice_metric as mod
from throttlelab.analysis.runs.prepare import prepare_runs
from throttlelab.analysis.runs.response_metric import resolve
from throttlelab.analysis.runs.runs_input import load_runs
from throttlelab.analysis.threads.thread_counts import analyse_thread_counts

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "runs" / "thread_sweep.csv"


def test_examples_run_and_hold():
    result = doctest.testmod(mod)
    assert result.attempted > 0 and result.failed == 0


def test_wall_time_is_unchanged_and_keeps_core_seconds():
    p = prepare_runs(load_runs(str(FIXTURE)))
    [a] = analyse_thread_counts(p.runs, n_sim=2000)
    for c in a.limits:
        v = mod.limit_threads(c, resolve("wall_seconds"))
        assert v.best.value == c.best_seconds.value and (v.best.low, v.best.high) == (c.best_seconds.low,
                                                                                        c.best_seconds.high)
        assert v.auto_vs_best.value == c.auto_vs_best.value and v.core_seconds == c.core_seconds
        assert v.best.unit == "s" and v.near_best_threads == c.near_best_threads


@pytest.mark.parametrize("metric", ["throughput_rps", "latency_p99_seconds"])
def test_every_number_in_the_metric_and_every_interval_in_order(metric):
    """Runs prepared for a metric: the best's value is the metric's geometric mean, auto's change the metric's own."""
    m = resolve(metric)
    runs = load_runs(str(FIXTURE))
    runs = runs.with_columns((1 / runs["wall_seconds"]).alias(metric)) if m.higher_is_better else \
        runs.with_columns(runs["wall_seconds"].alias(metric))
    p = prepare_runs(runs, metric=metric)
    [a] = analyse_thread_counts(p.runs, metric=metric, n_sim=2000)
    for c in a.limits:
        v = mod.limit_threads(c, m)
        assert v.best.unit == m.unit and v.best.low <= v.best.value <= v.best.high
        e = v.auto_vs_best
        assert e.low <= e.value <= e.high and e.p_value == c.auto_vs_best.p_value
        if m.higher_is_better:  # throughput = 1 / cost; a cost up by c% is the throughput down by c / (1 + c)
            assert v.best.value == pytest.approx(1 / c.best_seconds.value)
            assert e.value == pytest.approx(100 * (1 / (1 + c.auto_vs_best.value / 100) - 1))
            assert v.core_seconds is None and e.value > -100
        else:
            assert v.best.value == pytest.approx(c.best_seconds.value)
