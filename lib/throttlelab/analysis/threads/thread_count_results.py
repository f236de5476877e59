"""Notebook 04's ``results.json``: the result classes and the function that builds them from the analysis.

:func:`thread_count_results` turns the groups of
:func:`throttlelab.analysis.threads.thread_counts.analyse_thread_counts`, the
single-number verdicts and the thread advice into one :class:`ThreadCountResults`.
The headline numbers (auto against the best explicit count, the cheapest
limit and count) are fields of :class:`~throttlelab.analysis.threads.thread_choice.ThreadChoice`
with their intervals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import polars as pl

from throttlelab.analysis.stats import NoiseModel
from throttlelab.analysis.runs import PreparedRuns
from throttlelab.analysis.stats import OutlyingRun
from throttlelab.analysis.threads.thread_choice import ThreadChoice
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
    expected_seconds, expected_seconds_ci_low, expected_seconds_ci_high
        Its expected cost (the metric's cost) with its interval (``null``: exact or unmeasured).
    core_seconds
        Limit x expected time: what a run reserves (``null`` for unlimited).
    """

    group: str
    limit: str
    limit_cores: float
    threads: str | None
    expected_seconds: float
    expected_seconds_ci_low: float
    expected_seconds_ci_high: float
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
    log_cost, runs
        Log of its cost (larger is worse) and the runs behind it.
    reference_threads, reference_kind, best_threads
        The count it is compared with (``quota``: the limit rounded up; ``best``: the best, chosen after looking)
        and the best count at this limit.
    cost_gap_pct
        Cost over the reference's, percent (positive = worse).
    breakeven_cv_pct
        Run-to-run noise (CV, percent) at which the gap would stop being significant (``null`` for the reference).
    verdict
        ``clearly worse``/``clearly better``, ``cannot be told apart``, ``undecided`` or ``reference``.
    replicates_needed
        Runs per cell that would decide an undecided gap at the ceiling noise (``null`` otherwise).
    """

    group: str
    limit_label: str
    limit_x: float
    threads: str
    metric_value: float
    log_cost: float
    runs: int
    reference_threads: str
    reference_kind: str
    best_threads: str
    cost_gap_pct: float
    breakeven_cv_pct: float
    verdict: str
    replicates_needed: int | None


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
        One entry per limit: best explicit count, auto against it, recommended count.
    recommendations
        One row per limit: the count to run with its expected cost and interval.
    """

    group: dict[str, Any]
    label: str
    has_explicit_threads: bool
    has_auto: bool
    note: str
    noise: NoiseModel
    best_threads: tuple[ThreadChoice, ...]
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
        The notebook's parameters.
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


def thread_count_group(a: ThreadCountAnalysis) -> ThreadCountGroup:
    """One group of :func:`~throttlelab.analysis.threads.thread_counts.analyse_thread_counts` as a :class:`ThreadCountGroup`."""
    return ThreadCountGroup(group=dict(a.group), label=a.label, has_explicit_threads=a.has_explicit_threads,
                            has_auto=a.has_auto, note=a.note, noise=a.noise, best_threads=tuple(a.limits),
                            recommendations=table(a.recommendations(), ThreadRecommendationRow), method=a.method, outlying_runs=a.outlying_runs)


def thread_count_results(prepared: PreparedRuns, analyses: list[ThreadCountAnalysis], *, runs_path: str = "",
                         parameters: dict[str, Any] | None = None, single_number_verdicts: pl.DataFrame | None = None,
                         thread_advice: pl.DataFrame | None = None) -> ThreadCountResults:
    """Notebook 04's :class:`ThreadCountResults` from the prepared runs and the analysed groups."""
    m = prepared.metric
    return ThreadCountResults(
        input={"runs_path": runs_path or "published:ffmpeg_cpu_limit_sweep.csv"},
        runs=prepared.summary(),
        parameters={"metric": m.name, **(parameters or {})},
        metric={"name": m.name, "unit": m.unit, "direction": m.direction},
        thread_comparison_possible=any(a.has_explicit_threads for a in analyses),
        groups=tuple(thread_count_group(a) for a in analyses),
        single_number_verdicts=pl.DataFrame() if single_number_verdicts is None else table(
            single_number_verdicts.rename({m.name: "metric_value"}, strict=False), SingleNumberVerdictRow),
        thread_advice=pl.DataFrame() if thread_advice is None else table(thread_advice, ThreadAdviceRow),
    )
