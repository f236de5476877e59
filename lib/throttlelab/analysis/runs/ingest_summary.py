"""Notebook 02's ``results.json``: what was read from each input, what was skipped and why, throttling per limit.

:func:`ingest_summary` turns the :class:`~throttlelab.ingest.result.IngestResult`
of every input into one :class:`IngestSummary`: the line accounting (every
input line used or counted as skipped with its reason) and the per-limit
throttling table the headlines quote.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import polars as pl

from throttlelab.ingest.intervals import summary_by_limit
from throttlelab.ingest.result import IngestResult
from throttlelab.result_tables import Rows, table


@dataclass(frozen=True)
class InputRead:
    """One input file or folder and what was read from it.

    Attributes
    ----------
    input, format
        The path given and its (detected) format.
    table
        The table its rows go to (``samples``, ``requests``, ...).
    rows
        Rows out.
    lines_total, lines_used, lines_skipped
        Input lines (or values) read, used and skipped.
    skipped
        Reason -> lines skipped for it.
    sources, unit, provenance
        Files behind the input, what a "line" is, and where the data came from.
    """

    input: str
    format: str
    table: str
    rows: int
    lines_total: int
    lines_used: int
    lines_skipped: int
    skipped: dict[str, int]
    sources: tuple[str, ...]
    unit: str
    provenance: dict[str, Any]


@dataclass(frozen=True)
class LimitThrottlingRow:
    """A row of ``by_limit``: throttling of one source at one CPU limit, over the intervals between its samples.

    Attributes
    ----------
    source
        The container or file the samples came from.
    limit_cores
        The CPU limit in cores (``null``: unlimited).
    seconds
        Time the intervals cover.
    nr_periods, nr_throttled
        CFS periods and throttled periods counted by the kernel (counter deltas, every period, no sampling).
    throttled_ratio
        ``nr_throttled / nr_periods``.
    effective_cores
        Time-weighted mean CPU used (cores).
    throttled_seconds_per_second
        Time-weighted throttled time per second.
    max_memory_bytes
        Largest memory seen (``null``: not recorded).
    """

    source: str | None
    limit_cores: float
    seconds: float
    nr_periods: int | None
    nr_throttled: int | None
    throttled_ratio: float
    effective_cores: float
    throttled_seconds_per_second: float
    max_memory_bytes: float


@dataclass(frozen=True)
class IngestSummary:
    """``results.json`` of notebook 02 (ingest logs): the inputs read, the line accounting and throttling per limit.

    Attributes
    ----------
    inputs
        One entry per input.
    samples, intervals
        Monitor samples read and the intervals between them.
    lines_total, lines_skipped
        Input lines (or values) over every input, and those skipped.
    skipped_by_reason
        Reason -> lines skipped, over every input.
    by_limit
        Throttling per source and CPU limit (counted over every CFS period, no sampling).
    """

    inputs: tuple[InputRead, ...]
    samples: int
    intervals: int
    lines_total: int
    lines_skipped: int
    skipped_by_reason: dict[str, int]
    by_limit: Annotated[Any, Rows(LimitThrottlingRow)]


def input_read(path: str, fmt: str, r: IngestResult) -> InputRead:
    """One input's :class:`InputRead` from its ingest result."""
    d = r.to_dict()
    return InputRead(input=str(path), format=fmt, table=d["table"], rows=d["rows"], lines_total=d["lines_total"],
                     lines_used=d["lines_used"], lines_skipped=d["lines_skipped"], skipped=d["skipped"],
                     sources=tuple(str(s) for s in d["sources"]), unit=d["unit"], provenance=dict(d["provenance"]))


def merge_by_table(results: list[tuple[str, str, IngestResult]]) -> dict[str, IngestResult]:
    """The ingest results of every input merged per output table (``samples``, ``requests``, ...)."""
    by_table: dict[str, IngestResult] = {}
    for _, _, r in results:
        by_table[r.table] = by_table[r.table].merge(r) if r.table in by_table else r
    return by_table


def ingest_summary(results: list[tuple[str, str, IngestResult]], *,
                   intervals: pl.DataFrame | None = None) -> IngestSummary:
    """Notebook 02's :class:`IngestSummary` from ``(path, format, result)`` of every input.

    ``intervals``: the merged samples' intervals when the caller has them already (else computed).

    Examples
    --------
    >>> from throttlelab.ingest.detect import read_any
    >>> from throttlelab.ingest.published import PUBLISHED_DIR
    >>> path = str(PUBLISHED_DIR / "samples" / "local_cgroup_v1_quota_steps.log")
    >>> s = ingest_summary([(path, "monitor", read_any(path, "monitor"))])
    >>> s.samples, s.lines_skipped, sorted(s.by_limit["limit_cores"].to_list())
    (90, 0, [0.25, 0.5, 1.0])
    """
    by_table = merge_by_table(results)
    samples = by_table["samples"] if "samples" in by_table else None
    iv = intervals if intervals is not None else samples.intervals() if samples is not None else pl.DataFrame()
    return IngestSummary(
        inputs=tuple(input_read(p, f, r) for p, f, r in results),
        samples=samples.samples.height if samples is not None else 0,
        intervals=iv.height,
        lines_total=sum(r.lines_total for _, _, r in results),
        lines_skipped=sum(r.skipped.total for _, _, r in results),
        skipped_by_reason={k: v for r in by_table.values() for k, v in r.skipped.counts.items()},
        by_limit=table(summary_by_limit(iv), LimitThrottlingRow) if iv.height else pl.DataFrame(),
    )
