"""Notebook 04's ``results.json``: the result classes and the function that builds them from the analysis.

:func:`thread_count_results` turns the groups of
:func:`throttlelab.analysis.thread_counts.analyse_thread_counts`, the
single-number verdicts and the thread advice into one :class:`ThreadCountResults`.
The headline numbers (auto against the best explicit count, the cheapest
limit and count) are fields of :class:`~throttlelab.analysis.thread_counts.ThreadChoice`
with their intervals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from throttlelab.analysis.noise import NoiseModel
from throttlelab.analysis.prepare import PreparedRuns
from throttlelab.analysis.run_level import OutlyingRun
from throttlelab.analysis.thread_counts import ThreadChoice, ThreadCountAnalysis


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
        One row per limit: ``limit``, ``limit_cores``, ``threads``, ``expected_seconds`` with
        ``expected_seconds_ci_low``/``_high``, ``core_seconds``.
    """

    group: dict[str, Any]
    label: str
    has_explicit_threads: bool
    has_auto: bool
    note: str
    noise: NoiseModel
    best_threads: tuple[ThreadChoice, ...]
    recommendations: Any
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
    single_number_verdicts: Any
    thread_advice: Any


def thread_count_group(a: ThreadCountAnalysis) -> ThreadCountGroup:
    """One group of :func:`~throttlelab.analysis.thread_counts.analyse_thread_counts` as a :class:`ThreadCountGroup`."""
    return ThreadCountGroup(group=dict(a.group), label=a.label, has_explicit_threads=a.has_explicit_threads,
                            has_auto=a.has_auto, note=a.note, noise=a.noise, best_threads=tuple(a.limits),
                            recommendations=a.recommendations(), method=a.method, outlying_runs=a.outlying_runs)


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
        single_number_verdicts=single_number_verdicts if single_number_verdicts is not None else pl.DataFrame(),
        thread_advice=thread_advice if thread_advice is not None else pl.DataFrame(),
    )
