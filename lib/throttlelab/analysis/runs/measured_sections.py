"""Measured sections of notebooks 05 and 06 as result classes, built from the analyses' tables.

The measured requests of the contention notebook (:class:`MeasuredContention`),
its neighbour worker-count sweep (:class:`MeasuredWorkers`), the measured stage
timings of the concurrency notebook (:class:`MeasuredStages`) and a live sweep
(:class:`LiveSweep`).  Their tables' row classes are
:mod:`~throttlelab.analysis.runs.measured_rows`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import polars as pl

from throttlelab.analysis.runs.measured_rows import (
    ContentionLatencyRow, InflationRow, StageTestRow, WorkerChangeRow, WorkerRunRow, WorkersLatencyRow,
    WorkerTestRow, WorkerTrendRow
)
from throttlelab.result_tables import Rows, table
from throttlelab.results import Fit


@dataclass(frozen=True)
class MeasuredFit:
    """A response-curve fit of measured requests (one configuration and load), or why there is none.

    Attributes
    ----------
    config, load
        The configuration and the load.
    model
        The model tried (``hyperbolic``, ``mm1``).
    fit
        The fit (parameters with request-bootstrap intervals, derived knee/doubling/pole); ``null`` when none.
    note
        Why there is no fit (``not enough data to decide: ...``), or its caveats.
    """

    config: str
    load: float
    model: str
    fit: Fit | None
    note: str


@dataclass(frozen=True)
class MeasuredContention:
    """Notebook 05's measured requests: latency by neighbour share, its inflation and the fitted curves.

    Attributes
    ----------
    requests, by_status
        Requests read and their count by status.
    neighbour_workers
        The neighbour's most common worker count (the share sweep uses it; ``null``: not recorded).
    summary
        Per configuration, load, share and worker count.
    inflation_mean
        Mean response time against share 0, request- and run-level.
    fits
        One per configuration and load.
    """

    requests: int
    by_status: dict[str, int]
    neighbour_workers: int | None
    summary: Annotated[Any, Rows(ContentionLatencyRow)]
    inflation_mean: Annotated[Any, Rows(InflationRow)]
    fits: tuple[MeasuredFit, ...]


@dataclass(frozen=True)
class MeasuredWorkers:
    """Notebook 05's worker-count sweep: response time against the neighbour's busy workers at one share.

    Attributes
    ----------
    note
        Why there is nothing to compare (then every other field is ``null`` or empty), or what the tables rest on.
    share, baseline_workers, workers
        The share analysed, the worker count changes are measured against, and every worker count.
    summary, runs, change, tests, trend
        Per worker count; per run; against the baseline; tested; across all worker counts.
    """

    note: str
    share: float | None = None
    baseline_workers: int | None = None
    workers: tuple[int, ...] = ()
    summary: Annotated[Any, Rows(WorkersLatencyRow)] = ()
    runs: Annotated[Any, Rows(WorkerRunRow)] = ()
    change: Annotated[Any, Rows(WorkerChangeRow)] = ()
    tests: Annotated[Any, Rows(WorkerTestRow)] = ()
    trend: Annotated[Any, Rows(WorkerTrendRow)] = ()


@dataclass(frozen=True)
class MeasuredStages:
    """Notebook 06's measured stage timings: the other configuration against the base, per stage and load.

    Attributes
    ----------
    requests, by_status
        Requests read and their count by status.
    note
        Why there is no comparison (then ``base``, ``other`` are ``null`` and ``tests`` empty), else empty.
    base, other
        The two configurations compared.
    tests
        Per stage and load: run-level and request-level tests.
    verdicts
        Verdict -> rows of ``tests``.
    """

    requests: int
    by_status: dict[str, int]
    note: str = ""
    base: str | None = None
    other: str | None = None
    tests: Annotated[Any, Rows(StageTestRow)] = ()
    verdicts: dict[str, int] | None = None


@dataclass(frozen=True)
class LiveSweep:
    """What a notebook's live sweep ran.

    Attributes
    ----------
    store, points, backend
        The run store's folder, the points run and the backend.
    """

    store: str
    points: int
    backend: str


def by_status(requests: pl.DataFrame) -> dict[str, int]:
    """Requests by status."""
    return dict(requests.group_by("status").len().sort("status").iter_rows())


def measured_contention(requests: pl.DataFrame, measured: dict[str, Any]) -> MeasuredContention:
    """:class:`MeasuredContention` from :func:`~throttlelab.analysis.latency.response_curves.analyse_measured`."""
    objs = measured.get("fit_by_group", {})
    fits = []
    for r in measured["fits"].iter_rows(named=True):
        f = objs.get((r["config"], r["load"]))
        fits.append(MeasuredFit(r["config"], float(r["load"]), r["model"], f.as_fit() if f else None,
                                r.get("note") or ""))
    return MeasuredContention(requests=requests.height, by_status=by_status(requests),
                              neighbour_workers=measured["neighbour_workers"],
                              summary=table(measured["summary"], ContentionLatencyRow),
                              inflation_mean=table(measured["inflation_mean"], InflationRow), fits=tuple(fits))


def measured_workers(workers: dict[str, Any]) -> MeasuredWorkers:
    """:class:`MeasuredWorkers` from :func:`~throttlelab.analysis.latency.neighbour_workers.analyse_neighbour_workers`."""
    if "summary" not in workers:
        return MeasuredWorkers(note=workers["note"])
    return MeasuredWorkers(
        note=workers.get("note") or "", share=workers["share"], baseline_workers=workers["baseline_workers"],
        workers=tuple(int(w) for w in workers["workers"]), summary=table(workers["summary"], WorkersLatencyRow),
        runs=table(workers["runs"], WorkerRunRow), change=table(workers["change"], WorkerChangeRow),
        tests=table(workers["tests"], WorkerTestRow), trend=table(workers["trend"], WorkerTrendRow))


def measured_stages(requests: pl.DataFrame, measured: dict[str, Any]) -> MeasuredStages:
    """:class:`MeasuredStages` from :func:`~throttlelab.analysis.latency.concurrency.analyse_measured_stages`."""
    if "note" in measured:
        return MeasuredStages(requests.height, by_status(requests), note=measured["note"])
    t = measured["tests"]
    return MeasuredStages(requests.height, by_status(requests), base=measured["base"], other=measured["other"],
                          tests=table(t, StageTestRow), verdicts=dict(t.group_by("verdict").len().sort("verdict")
                                                                      .iter_rows()))


def live_sweep(value: dict[str, Any] | None) -> LiveSweep | None:
    """:class:`LiveSweep` from the notebooks' ``{store, points, backend}`` (``None`` stays ``None``)."""
    return None if value is None else LiveSweep(str(value["store"]), int(value["points"]), str(value["backend"]))
