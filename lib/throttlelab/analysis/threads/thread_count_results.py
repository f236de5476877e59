"""Notebook 04's ``results.json``: the result classes and the function that builds them from the analysis.

:func:`thread_count_results` turns the groups of
:func:`throttlelab.analysis.threads.thread_counts.analyse_thread_counts`, the
single-number verdicts and the thread advice into one :class:`ThreadCountResults`.
The headline numbers (auto against the best explicit count, the cheapest
limit and count) are fields of :class:`~throttlelab.analysis.threads.thread_choice_metric.LimitThreads`
with their intervals, in the response metric's own unit and direction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import polars as pl

from throttlelab.analysis.stats import NoiseModel
from throttlelab.analysis.runs import PreparedRuns
from throttlelab.analysis.stats import OutlyingRun
from throttlelab.analysis.threads.thread_choice_metric import LimitThreads, limit_threads
from throttlelab.analysis.threads.thread_counts import ThreadCountAnalysis
from throttlelab.result_tables import Rows, table


@dataclass(frozen=True)
class ThreadRecommendationRow:
    """A row of ``recommendations``: the thread count to run at one limit.

    Attributes
    ----------
    group, limit, limit_cores
        The group's label, the limit's label and the limit in cores (``null``: unlimited).
    threads
        The count to run (``auto`` when it is not worse than the best explicit count).
    expected, expected_ci_low, expected_ci_high
        Its expected value of the metric, in the metric's unit, with its interval (``null``: exact, or run-to-run
        noise unmeasured).
    core_seconds
        Limit x expected wall time: what a run reserves (``null`` for unlimited and for other metrics).
    """

    group: str
    limit: str
    limit_cores: float
    threads: str | None
    expected: float
    expected_ci_low: float
    expected_ci_high: float
    core_seconds: float


@dataclass(frozen=True)
class SingleNumberVerdictRow:
    """A row of ``single_number_verdicts``: one cell (limit x threads) measured once, against the reference count.

    Attributes
    ----------
    group, limit_label, limit_x, threads
        The group, the limit (label and cores; ``null``: unlimited) and the thread count.
    metric_value
        The cell's value of the response metric (``metric`` at the top of the document).
    runs
        The runs behind it (one).
    reference_threads, reference_kind, best_threads
        The count it is compared with (``quota``: the limit rounded up; ``best``: the best measured, chosen after
        looking) and the count with the best measured value at this limit (one run each: not a finding).
    change_pct
        The metric's change from the reference to this count, percent (throughput -50%: half the throughput).
    breakeven_cv_pct
        Run-to-run noise (CV, percent) at which the gap would stop being significant (``null`` for the reference).
    verdict
        ``clearly worse``/``clearly better``, ``cannot be told apart``, ``undecided`` or ``reference``.
    replicates_needed
        Runs per cell that would decide an undecided gap at the ceiling noise (``null`` otherwise).
    clearly_worse_than_best
        The gap to the best measured count survives the ceiling noise (range-corrected over the limit's cells).
    near_best
        No verdict calls this count clearly worse (what ``near_best_threads`` lists).
    """

    group: str
    limit_label: str
    limit_x: float
    threads: str
    metric_value: float
    runs: int
    reference_threads: str
    reference_kind: str
    best_threads: str
    change_pct: float
    breakeven_cv_pct: float
    verdict: str
    replicates_needed: int | None
    clearly_worse_than_best: bool
    near_best: bool


@dataclass(frozen=True)
class ThreadAdviceRow:
    """A row of ``thread_advice``: at one limit and metric, the count to use against ``auto`` or the host's cores.

    Attributes
    ----------
    group, limit, limit_cores
        The group's label, the limit's label and the limit in cores (``null``: unlimited).
    use_threads, near_best_threads
        The count to use (chosen by the primary metric) and the explicit counts not significantly worse
        (comma-separated; ``null`` for single numbers).
    metric, unit, direction
        The metric this row reports, its unit and which way is better.
    compared, compared_threads
        What is compared with the count to use (``auto`` or ``host cores``) and its thread count.
    use_value, compared_value
        The metric's geometric mean for the two counts.
    change_pct, ci_low_pct, ci_high_pct, p_value
        The metric's change from the count to use to the compared one, percent, with its interval and two-sided
        p-value (``null`` for single numbers or zero noise).
    runs
        Runs behind the two values (``"compared vs used"``).
    verdict
        ``worse``/``better``, ``too few runs to decide`` (with the runs that would decide) or a single-number verdict.
    method
        The procedure behind the interval and p-value (in the metric that chose the count, the thread-count
        analysis' own; every comparison a pair of the sweep-wide family of
        :mod:`~throttlelab.analysis.threads.thread_sweep`).
    """

    group: str
    limit: str
    limit_cores: float
    use_threads: str
    near_best_threads: str | None
    metric: str
    unit: str
    direction: str
    compared: str
    compared_threads: str
    use_value: float
    compared_value: float
    change_pct: float
    ci_low_pct: float
    ci_high_pct: float
    p_value: float
    runs: str
    verdict: str
    method: str


@dataclass(frozen=True)
class ThreadCountGroup:
    """Notebook 04's answer for one (workload, contention) group.

    Attributes
    ----------
    group, label
        The group's key columns and its label.
    has_explicit_threads, has_auto
        Whether the group has runs with explicit thread counts and with ``auto``.
    note
        Why a comparison is not possible (e.g. only ``auto`` thread counts), else empty.
    noise
        Run-to-run noise on the log scale pooled over the group's replicated cells (each limit's own noise,
        which its comparisons use, is in ``best_threads``).
    method
        The procedure: where each limit's noise came from and how "slower than the best", auto against the best
        and the probability of being best were computed (or why there is no test).
    outlying_runs
        Runs flagged as outlying at their limit (robust scale), shown and left out.
    best_threads
        One entry per limit: best explicit count, auto against it, recommended count, in the metric's own unit.
    recommendations
        One row per limit: the count to run with its expected value of the metric and interval.
    """

    group: dict[str, Any]
    label: str
    has_explicit_threads: bool
    has_auto: bool
    note: str
    noise: NoiseModel
    best_threads: tuple[LimitThreads, ...]
    recommendations: Annotated[Any, Rows(ThreadRecommendationRow)]
    method: str = ""
    outlying_runs: tuple[OutlyingRun, ...] = ()


@dataclass(frozen=True)
class ThreadCountResults:
    """``results.json`` of notebook 04 (thread counts): the best thread count per limit and auto's cost.

    Attributes
    ----------
    input
        Where the runs came from (``runs_path``).
    runs
        Runs analysed and excluded (by reason).
    parameters
        The analysis' parameters, as its groups carry them (the metric, alpha, the noise prior and model, the
        single-number noise band, the family of the claims), and ``advice_metrics``: the metrics besides the
        primary one that the thread advice reports.
    metric
        The response metric: ``name``, ``unit``, ``direction``.
    thread_comparison_possible
        False when no group has explicit thread counts (then the answer is "too few to decide").
    groups
        One entry per group.
    single_number_verdicts
        What one number per cell can decide (groups without replicates): one row per cell with its verdict.
    thread_advice
        Per limit and metric: the thread count to use against auto or the host's core count, with the change.
    """

    input: dict[str, str]
    runs: dict[str, Any]
    parameters: dict[str, Any]
    metric: dict[str, str]
    thread_comparison_possible: bool
    groups: tuple[ThreadCountGroup, ...]
    single_number_verdicts: Annotated[Any, Rows(SingleNumberVerdictRow)]
    thread_advice: Annotated[Any, Rows(ThreadAdviceRow)]


def recommendation_rows(label: str, limits: tuple[LimitThreads, ...]) -> pl.DataFrame:
    """``recommendations`` of one group: one :class:`ThreadRecommendationRow` per limit."""
    rows = [{"group": label, "limit": c.limit_label, "limit_cores": c.limit_cores, "threads": c.recommended_threads,
             "expected": None if c.recommended is None else c.recommended.value,
             "expected_ci_low": None if c.recommended is None else c.recommended.low,
             "expected_ci_high": None if c.recommended is None else c.recommended.high,
             "core_seconds": c.core_seconds} for c in limits]
    return table(pl.DataFrame(rows, schema={"group": pl.String, "limit": pl.String, "limit_cores": pl.Float64,
                                            "threads": pl.String, "expected": pl.Float64,
                                            "expected_ci_low": pl.Float64, "expected_ci_high": pl.Float64,
                                            "core_seconds": pl.Float64}), ThreadRecommendationRow)


def thread_count_group(a: ThreadCountAnalysis) -> ThreadCountGroup:
    """One group of :func:`~throttlelab.analysis.threads.thread_counts.analyse_thread_counts` as a :class:`ThreadCountGroup`."""
    limits = tuple(limit_threads(c, a.metric) for c in a.limits)
    return ThreadCountGroup(group=dict(a.group), label=a.label, has_explicit_threads=a.has_explicit_threads,
                            has_auto=a.has_auto, note=a.note, noise=a.noise, best_threads=limits,
                            recommendations=recommendation_rows(a.label, limits), method=a.method,
                            outlying_runs=a.outlying_runs)


def single_number_table(analyses: list[ThreadCountAnalysis]) -> pl.DataFrame:
    """The single-number verdicts of every group with one number per cell, with its ``group`` label."""
    parts = [a.single_numbers.with_columns(pl.lit(a.label).alias("group")) for a in analyses
             if a.single_numbers is not None]
    return pl.concat(parts, how="diagonal_relaxed").drop("limit_order", strict=False) if parts else pl.DataFrame()


def thread_count_results(prepared: PreparedRuns, analyses: list[ThreadCountAnalysis], *, runs_path: str = "",
                         thread_advice: pl.DataFrame | None = None) -> ThreadCountResults:
    """Notebook 04's :class:`ThreadCountResults` from the prepared runs and the analysed groups.

    Its ``parameters`` are those the groups were analysed with (:attr:`ThreadCountAnalysis.parameters`; groups of
    analyses with different parameters raise ``ValueError``) and the further metrics of ``thread_advice``.
    """
    m = prepared.metric
    made_with = {repr(a.parameters) for a in analyses}
    if len(made_with) > 1:
        raise ValueError(f"groups analysed with different parameters: {sorted(made_with)}")
    advice_metrics = ([] if thread_advice is None or not thread_advice.height else
                      [x for x in dict.fromkeys(thread_advice["metric"].to_list()) if x != m.name])
    single = single_number_table(analyses)
    return ThreadCountResults(
        input={"runs_path": runs_path or "published:ffmpeg_cpu_limit_sweep.csv"},
        runs=prepared.summary(),
        parameters={"metric": m.name, **(analyses[0].parameters if analyses else {}), "advice_metrics": advice_metrics},
        metric={"name": m.name, "unit": m.unit, "direction": m.direction},
        thread_comparison_possible=any(a.has_explicit_threads for a in analyses),
        groups=tuple(thread_count_group(a) for a in analyses),
        single_number_verdicts=table(single, SingleNumberVerdictRow) if single.height else pl.DataFrame(),
        thread_advice=pl.DataFrame() if thread_advice is None else table(thread_advice, ThreadAdviceRow),
    )
