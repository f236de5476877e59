"""Notebook 06's ``results.json``: the result classes and the function that builds them from the analysis.

:func:`concurrency_results` checks the wiki's printed %-change table against
its own per-run tables (:func:`throttlelab.analysis.latency.concurrency.wiki_reproduction`)
and states the semaphore headlines as :class:`~throttlelab.results.Estimate`
fields (mean and p95 total time at 30 virtual users; the interval is the k6
rounding only, one run per configuration).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import polars as pl

from throttlelab.analysis.latency import concurrency as cc
from throttlelab.analysis import runs as ms
from throttlelab.results import Estimate
from throttlelab.result_tables import Rows, table


@dataclass(frozen=True)
class WikiCellRow:
    """A printed cell of the wiki's %-change table that its own per-run tables do not reproduce.

    Attributes
    ----------
    load, stage, stat
        Virtual users, pipeline stage and statistic (``avg``, ``p95``, ``max``) of the cell.
    percent_change
        The change with the semaphore recomputed from the printed per-run values, percent.
    percent_printed
        The change the wiki prints, percent.
    """

    load: float
    stage: str
    stat: str
    percent_change: float
    percent_printed: float


@dataclass(frozen=True)
class LoadChangeRow:
    """A row of ``workers12_total_avg``: the semaphore's change at one load.

    Attributes
    ----------
    load
        Virtual users.
    percent_change
        %-change of the mean total time with the semaphore (max_workers=12), percent (negative = faster).
    """

    load: float
    percent_change: float


@dataclass(frozen=True)
class WikiTableCheck:
    """The wiki's printed %-change table (max_workers=8) against its own per-run tables.

    Attributes
    ----------
    cells
        Printed cells checked.
    verdicts
        Verdict -> cells: ``reproduced`` (inside the rounding range), ``close`` (within 1 point), ``inconsistent``.
    inconsistent
        The inconsistent cells, recomputed against printed.
    tests
        Why no test is possible on the published data.
    """

    cells: int
    verdicts: dict[str, int]
    inconsistent: Annotated[Any, Rows(WikiCellRow)]
    tests: str


@dataclass(frozen=True)
class ConcurrencyResults:
    """``results.json`` of notebook 06 (concurrency limits): what a semaphore on the CPU-heavy stage changes.

    Attributes
    ----------
    wiki_table
        The published %-change table rebuilt and checked.
    headline_avg_total_30vus
        %-change of the mean total time at 30 virtual users with the semaphore (the headline).
    headline_p95_total_30vus
        %-change of the p95 total time at 30 virtual users with the semaphore (the headline, about -55%).
    workers12_total_avg
        %-change of the mean total time per load at max_workers=12.
    measured
        Measured stage timings (``null`` when none were given): ``requests``, ``by_status``, ``base``, ``other``,
        the per-stage ``tests`` (run-level verdicts) and ``verdicts`` counted, or a ``note`` why not.
    live_sweep
        What the live sweep ran (``null`` when none).
    """

    wiki_table: WikiTableCheck
    headline_avg_total_30vus: Estimate
    headline_p95_total_30vus: Estimate
    workers12_total_avg: Annotated[Any, Rows(LoadChangeRow)]
    measured: ms.MeasuredStages | None
    live_sweep: ms.LiveSweep | None


def wiki_table_check(repro: pl.DataFrame) -> WikiTableCheck:
    """Count the verdicts of :func:`~throttlelab.analysis.latency.concurrency.wiki_reproduction` and list the inconsistent cells."""
    return WikiTableCheck(
        cells=repro.height,
        verdicts=dict(repro.group_by("verdict").len().sort("verdict").iter_rows()),
        inconsistent=table(repro.filter(pl.col("verdict") == "inconsistent").select(*WikiCellRow.__dataclass_fields__),
                           WikiCellRow),
        tests=cc.TESTS_UNAVAILABLE,
    )


def concurrency_results(published: pl.DataFrame, *, requests: pl.DataFrame | None = None,
                        measured: dict[str, Any] | None = None,
                        live_sweep: dict[str, Any] | None = None) -> ConcurrencyResults:
    """Notebook 06's :class:`ConcurrencyResults` from the published k6 table (and measured stage timings if any).

    Examples
    --------
    >>> from throttlelab.ingest.published import load_semaphore
    >>> r = concurrency_results(load_semaphore())
    >>> round(r.headline_p95_total_30vus.value), r.wiki_table.verdicts["inconsistent"]
    (-55, 17)
    """
    w12 = cc.percent_change_table(published, "workers=12,semaphore=none", "workers=12,semaphore=4")
    return ConcurrencyResults(
        wiki_table=wiki_table_check(cc.wiki_reproduction(published, max_workers=8)),
        headline_avg_total_30vus=cc.published_change(published, stat="avg"),
        headline_p95_total_30vus=cc.published_change(published, stat="p95"),
        workers12_total_avg=table(w12.filter((pl.col("stage") == "total") & (pl.col("stat") == "avg")).select(
            *LoadChangeRow.__dataclass_fields__), LoadChangeRow),
        measured=ms.measured_stages(requests, measured) if requests is not None and measured is not None else None,
        live_sweep=ms.live_sweep(live_sweep),
    )
