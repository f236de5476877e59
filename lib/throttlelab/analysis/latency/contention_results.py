"""Notebook 05's ``results.json``: the result classes and the function that builds them from the analysis.

:func:`contention_results` checks the paper's table 1
(:func:`throttlelab.analysis.latency.contention_paper.paper_table1`) and states its
headlines as :class:`~throttlelab.results.Estimate` fields: the +361% increase
(interval: the rounding of the printed milliseconds) and the neighbour share at
which response time takes off (hyperbolic fit, bootstrap interval).  Measured
requests and worker-count sweeps are added when the notebook was given them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Annotated, Any

import polars as pl

from throttlelab.analysis.latency import contention_paper as cp
from throttlelab.analysis import runs as ms
from throttlelab.analysis.latency.response_curves import ResponseCurveFit
from throttlelab.results import Estimate, Fit
from throttlelab.result_tables import Rows, table

@dataclass(frozen=True)
class PaperCellRow:
    """A cell of the paper's table 1 whose printed % increase its printed milliseconds do not reproduce.

    Attributes
    ----------
    requests_per_30s, contention
        The load (requests per 30 s) and the neighbour's share of the node.
    mean_ms
        The printed mean response time, ms.
    percent, percent_printed
        The increase over no contention recomputed from the printed milliseconds, and as printed, percent.
    """

    requests_per_30s: int
    contention: float
    mean_ms: float
    percent: float
    percent_printed: int


@dataclass(frozen=True)
class PaperTableCheck:
    """The paper's table 1 (mean response time and % increase) recomputed from its printed milliseconds.

    Attributes
    ----------
    cells
        Printed cells checked.
    consistent
        Cells whose printed % increase the printed milliseconds reproduce (within rounding).
    inconsistent_cells
        The others, recomputed against printed.
    max_percent_printed
        The largest printed increase (the paper's headline, +361%).
    """

    cells: int
    consistent: int
    inconsistent_cells: Annotated[Any, Rows(PaperCellRow)]
    max_percent_printed: int


@dataclass(frozen=True)
class ContentionResults:
    """``results.json`` of notebook 05 (contention): how much a co-located neighbour slows response time.

    Attributes
    ----------
    paper_table1
        The paper's table rebuilt and checked.
    headline_increase
        The paper's +361% (450 requests / 30 s, 70% stress) recomputed, with the range its rounding allows.
    headline_knee
        Neighbour share at which response time takes off (hyperbolic fit over all published points), with its
        bootstrap interval: the share to stay below.
    published_fit
        The pooled fits of the published points by model (``hyperbolic``, ``mm1``): parameters with bootstrap
        intervals, ``rss``/``aicc``/``r_squared``, warnings, and the knee, doubling and pole shares as derived
        estimates.
    measured
        Measured requests (``null`` when none): counts by status, per-share summary, inflation and fits.
    measured_workers
        The neighbour's busy-worker sweep (``null`` when none): change, tests and trend, or a ``note`` why not.
    live_sweep
        What the live sweep ran (``null`` when none).
    """

    paper_table1: PaperTableCheck
    headline_increase: Estimate
    headline_knee: Estimate
    published_fit: dict[str, Fit]
    measured: ms.MeasuredContention | None
    measured_workers: ms.MeasuredWorkers | None
    live_sweep: ms.LiveSweep | None


def paper_table_check(table1: pl.DataFrame) -> PaperTableCheck:
    """Count the cells of :func:`~throttlelab.analysis.latency.contention_paper.paper_table1` that reproduce."""
    return PaperTableCheck(
        cells=table1.height, consistent=int(table1["consistent"].sum()),
        inconsistent_cells=table(table1.filter(~pl.col("consistent")).select(*PaperCellRow.__dataclass_fields__),
                                 PaperCellRow),
        max_percent_printed=int(table1["percent_printed"].max()),
    )


def takeoff_share(fit: ResponseCurveFit) -> Estimate:
    """The knee of a hyperbolic fit as the headline estimate (its R² in the note)."""
    return dataclasses.replace(fit.knee, note=f"{fit.knee.note}; R² {fit.r2:.2f}".lstrip("; "))


def contention_results(table1: pl.DataFrame, fits: dict, *,
                       requests: pl.DataFrame | None = None, measured: dict[str, Any] | None = None,
                       workers: dict[str, Any] | None = None,
                       live_sweep: dict[str, Any] | None = None) -> ContentionResults:
    """Notebook 05's :class:`ContentionResults`.

    ``fits`` are the fits of :func:`~throttlelab.analysis.latency.response_curves.fit_summary` of the published points
    (by ``(model, group)``); ``measured`` is :func:`~throttlelab.analysis.latency.response_curves.analyse_measured` of ``requests`` and
    ``workers`` :func:`~throttlelab.analysis.latency.neighbour_workers.analyse_neighbour_workers`.

    Examples
    --------
    >>> from throttlelab.analysis.latency.response_curves import fit_summary
    >>> from throttlelab.ingest.published import load_contention
    >>> table1 = cp.paper_table1(load_contention())
    >>> r = contention_results(table1, fit_summary(load_contention(), n_boot=20)[1])
    >>> r.paper_table1.consistent, r.paper_table1.max_percent_printed, r.headline_increase.unit
    (18, 361, 'pct')
    """
    return ContentionResults(
        paper_table1=paper_table_check(table1),
        headline_increase=cp.published_increase(table1),
        headline_knee=takeoff_share(fits[("hyperbolic", "all")]),
        published_fit={m: fits[(m, "all")].as_fit() for m in ("hyperbolic", "mm1") if (m, "all") in fits},
        measured=ms.measured_contention(requests, measured) if requests is not None and measured is not None else None,
        measured_workers=None if workers is None else ms.measured_workers(workers),
        live_sweep=ms.live_sweep(live_sweep),
    )
