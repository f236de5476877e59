"""Notebook 01's ``results.json``: what a sweep planned, ran and stored, as one documented result class.

:func:`sweep_results` collects the sweep's plan, the runs in its store, the
per-point summary and, for an adaptive design, its decisions.  It is
descriptive (medians per point); intervals and tests are notebooks 03 and 04.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from throttlelab.experiment.sweeps.adaptive_tables import decisions_table


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
        The adaptive design's decisions (subject, answer, confidence, state); ``null`` for a grid.
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
    decisions: Any
    stop_reason: str | None
    stored_runs: int
    status_counts: dict[str, int]
    skipped_reason: str | None
    example_run: str | None
    summary: Any


def sweep_results(sweep, store, plan: list, runs: pl.DataFrame, summary: pl.DataFrame, *,
                  adaptive_status=None, skipped_reason: str | None = None,
                  example_run: str | None = None) -> SweepResults:
    """Notebook 01's :class:`SweepResults` from the sweep spec, its run store, plan, runs and per-point summary."""
    return SweepResults(
        experiment=sweep.name,
        store=str(store.directory),
        planned_runs=adaptive_status.budget if adaptive_status else len(plan),
        design=sweep.design,
        decisions=decisions_table(adaptive_status) if adaptive_status else None,
        stop_reason=adaptive_status.stop_reason if adaptive_status else None,
        stored_runs=runs.height,
        status_counts={s: n for s, n in runs["status"].value_counts().iter_rows()} if runs.height else {},
        skipped_reason=skipped_reason,
        example_run=example_run or None,
        summary=summary,
    )
