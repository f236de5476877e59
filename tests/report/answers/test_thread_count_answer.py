"""The thread-count answer: read from the analyses, the single-number verdicts and the advice; 40 plain words."""

from pathlib import Path

import polars as pl
import pytest

from throttlelab.analysis.runs.prepare import prepare_runs
from throttlelab.analysis.runs.runs_input import load_runs
from throttlelab.analysis.runs.single_numbers import single_number_verdicts
from throttlelab.analysis.threads.thread_advice import thread_advice
from throttlelab.analysis.threads.thread_counts import analyse_thread_counts
from throttlelab.report.answers.answer_text import lead_problems
from throttlelab.report.answers.thread_count_answer import per_limit_lines, thread_count_answer

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "runs" / "thread_sweep.csv"


def inputs(path: str, metric: str, advice_metrics: tuple[str, ...] = ()):
    """What notebook 04 computes before its answer."""
    runs = load_runs(path)
    prepared = prepare_runs(runs, metric=metric)
    m = prepared.metric
    analyses = analyse_thread_counts(prepared.runs, metric=m)
    single = [a for a in analyses if a.has_explicit_threads and a.noise.assumption_based]
    verdicts = pl.DataFrame()
    for a in single:
        cells = prepared.runs.group_by("limit_label", "limit_order", "limit_x", "threads").agg(
            pl.col("metric_value").first().alias(m.name), pl.col("log_wall").mean().alias("log_cost"),
            pl.len().alias("runs"))
        v = single_number_verdicts(cells).with_columns(pl.lit(a.label).alias("group")).drop("limit_order")
        verdicts = pl.concat([verdicts, v], how="diagonal_relaxed")
    advice = thread_advice(runs, metric=m.name, advice_metrics=advice_metrics)
    return analyses, single, verdicts, advice, prepared


@pytest.mark.parametrize("metric, advice_metrics, lead", [
    ("throughput_rps", ("throughput_rps", "latency_p50_seconds", "latency_p999_seconds"),
     "Set GOMAXPROCS to 2, the quota. With all 24 host cores, throughput halved and p99.9 latency nearly tripled. "
     "How sure: one run per setting; 1 and 8 threads are not yet clear (6 runs each would decide)."),
    ("latency_p999_seconds", (),
     "Set GOMAXPROCS to 2, the quota. With 8 or 24 threads, p99.9 latency rose 144% to 189%. "
     "How sure: one run per setting; 1 and 4 threads are not yet clear (7 runs each would decide)."),
])
def test_one_number_per_cell_keeps_the_quota_unless_a_count_is_clearly_better(metric, advice_metrics, lead):
    analyses, single, verdicts, advice, prepared = inputs("published:automaxprocs", metric, advice_metrics)
    a = thread_count_answer(analyses, single, verdicts, advice, prepared, runs_path="published:automaxprocs")
    assert a.lead == lead and lead_problems(a.lead) == []
    assert "break-even noise" in a.method_markdown() and a.rests_on.startswith("6 runs (the published automaxprocs table)")


def test_a_clearly_better_count_is_the_one_to_set():
    analyses, single, verdicts, advice, prepared = inputs("published:automaxprocs", "latency_p999_seconds")
    better = verdicts.with_columns(pl.when(pl.col("threads") == "1").then(pl.lit("clearly better"))
                                   .otherwise(pl.col("verdict")).alias("verdict"))
    a = thread_count_answer(analyses, single, better, advice, prepared)
    assert a.lead.startswith("Set GOMAXPROCS to 1.") and "the quota" not in a.lead.split(".")[0]


def test_auto_only_is_too_few_to_decide_with_what_would_decide():
    analyses, single, verdicts, advice, prepared = inputs("", "wall_seconds")
    a = thread_count_answer(analyses, single, verdicts, advice, prepared)
    assert a.lead.startswith("Too few to decide: every ffmpeg run used automatic threads")
    assert "3 runs each, would decide it" in a.lead and lead_problems(a.lead) == []
    assert any("only `auto`" in h for h in a.headlines)


def test_replicated_runs_give_the_cheapest_setting_and_what_auto_costs():
    analyses, single, verdicts, advice, prepared = inputs(str(FIXTURE), "wall_seconds")
    a = thread_count_answer(analyses, single, verdicts, advice, prepared, runs_path=str(FIXTURE))
    assert a.lead.startswith("Run ffmpeg with ") and "core-seconds per run)" in a.lead
    assert "automatic threads were" in a.lead and "How sure: 60 runs, 3 per setting" in a.lead
    assert lead_problems(a.lead) == [] and "Repeated runs" in a.method_markdown()
    lines = per_limit_lines(analyses, single, verdicts, advice, prepared.metric, ceiling_cv=0.15, floor_cv=0.05)
    assert lines and not any(" 1 threads" in s for s in lines)


def test_a_deterministic_metric_says_the_gap_is_exact():
    analyses, single, verdicts, advice, prepared = inputs(str(FIXTURE), "cpu_seconds")
    a = thread_count_answer(analyses, single, verdicts, advice, prepared)
    assert lead_problems(a.lead) == [] and "95% interval" not in a.lead
    assert any("exact: zero run-to-run noise" in h for h in a.headlines)


def test_no_run_is_too_few_to_decide():
    _, _, _, advice, prepared = inputs("published:automaxprocs", "throughput_rps")
    a = thread_count_answer([], [], pl.DataFrame(), advice, prepared)
    assert a.lead.startswith("Too few runs to decide")
