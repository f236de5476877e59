"""Notebook 01's ``results.json``: what a sweep planned, ran and stored, as one documented result class.

:func:`sweep_results` collects the sweep's plan, the runs in its store, the
per-point summary and, for an adaptive design, its decisions.  It is
descriptive (medians per point); intervals and tests are notebooks 03 and 04.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import polars as pl

from throttlelab.experiment.sweeps.adaptive import decisions_table
from throttlelab.result_tables import Rows, table


@dataclass(frozen=True)
class DecisionRow:
    """A row of ``decisions``: one decision of the adaptive design.

    Attributes
    ----------
    decision
        What it is about (``knee``, ``dead zone``, ``thread count``, ...).
    contention, limit
        The neighbour's share and the limit it concerns (empty for the knee).
    answer
        The current answer.
    confidence, target
        Its posterior confidence and the confidence it must reach (so all decisions hold together at the spec's).
    state
        ``decided`` or ``open``.
    runs_to_decide
        Rough runs per pivotal cell that would decide an open decision (``null`` when decided).
    """

    decision: str
    contention: float
    limit: str
    answer: str | None
    confidence: float
    target: float
    state: str
    runs_to_decide: int | None


@dataclass(frozen=True)
class SweepPointRow:
    """A row of ``summary``: one point (contention x limit x threads), medians over its ok replicates.

    Attributes
    ----------
    contention, cpu_limit_cores, limit, threads
        The neighbour's share, the limit (cores, ``null``: unlimited; and as text) and the thread count.
    runs, ok
        Runs at the point (failed ones included) and those that finished ok.
    median_wall_seconds, median_cpu_seconds, median_effective_cores
        Medians of wall time, CPU time and CPU / wall.
    throttled_ratio
        Pooled ``nr_throttled / nr_periods`` (``null``: no CFS period counted, e.g. unlimited).
    median_throttled_seconds
        Median throttled time per run.
    median_throughput_rps, median_items_per_second, median_latency_p50_seconds, median_latency_p90_seconds, median_latency_p99_seconds, median_latency_p999_seconds
        Medians of the service metrics a load-driven run records (``null`` for runs that do not record them).
    """

    contention: float
    cpu_limit_cores: float
    limit: str
    threads: str
    runs: int
    ok: int
    median_wall_seconds: float
    median_cpu_seconds: float
    median_effective_cores: float
    throttled_ratio: float
    median_throttled_seconds: float
    median_throughput_rps: float | None = None
    median_items_per_second: float | None = None
    median_latency_p50_seconds: float | None = None
    median_latency_p90_seconds: float | None = None
    median_latency_p99_seconds: float | None = None
    median_latency_p999_seconds: float | None = None


@dataclass(frozen=True)
class SweepResults:
    """``results.json`` of notebook 01 (run a sweep): what was planned, run and stored.

    Attributes
    ----------
    experiment
        The sweep's name.
    store
        The run store's folder.
    planned_runs
        Runs in the plan (an adaptive design: its budget).
    design
        ``grid`` or ``adaptive``.
    decisions
        The adaptive design's decisions; ``null`` for a grid.
    stop_reason
        Why the adaptive design stopped; ``null`` for a grid.
    stored_runs
        Runs of this sweep in the store.
    status_counts
        Run status -> runs (``ok``, ``failed``, ``timeout``, ...).
    skipped_reason
        Why runs were not run here (backend not available, ``run=False``); ``null`` when they were.
    example_run
        The run whose monitor intervals are shown (``null``: none).
    summary
        Per point (limit x threads): medians over replicates of wall time, throttled ratio, ...
    """

    experiment: str
    store: str
    planned_runs: int
    design: str
    decisions: Annotated[Any, Rows(DecisionRow)] | None
    stop_reason: str | None
    stored_runs: int
    status_counts: dict[str, int]
    skipped_reason: str | None
    example_run: str | None
    summary: Annotated[Any, Rows(SweepPointRow)]


def sweep_results(sweep, store, plan: list, runs: pl.DataFrame, summary: pl.DataFrame, *,
                  adaptive_status=None, skipped_reason: str | None = None,
                  example_run: str | None = None) -> SweepResults:
    """Notebook 01's :class:`SweepResults` from the sweep spec, its run store, plan, runs and per-point summary."""
    return SweepResults(
        experiment=sweep.name,
        store=str(store.directory),
        planned_runs=adaptive_status.budget if adaptive_status else len(plan),
        design=sweep.design,
        decisions=table(decisions_table(adaptive_status), DecisionRow) if adaptive_status else None,
        stop_reason=adaptive_status.stop_reason if adaptive_status else None,
        stored_runs=runs.height,
        status_counts={s: n for s, n in runs["status"].value_counts().iter_rows()} if runs.height else {},
        skipped_reason=skipped_reason,
        example_run=example_run or None,
        summary=table(summary, SweepPointRow),
    )
