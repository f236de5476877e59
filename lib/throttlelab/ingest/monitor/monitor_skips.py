"""Skip accounting of the monitor-log reader: the reasons, the skip report and strict mode.

Each line carries a reason code (``rc``, an index into :data:`REASONS`; 0 is
used); :func:`ingest_result` turns the codes into the
:class:`~throttlelab.ingest.result.SkipReport` (counts and examples per reason)
of the :class:`~throttlelab.ingest.result.IngestResult`, or with ``strict``
raises :class:`~throttlelab.errors.InputError` at the first skipped line.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.result import EXAMPLES_PER_REASON, IngestResult, Skip, SkipReport, excerpt

REASONS = (
    None,
    lines_mod.BINARY,
    lines_mod.NON_UTF8,
    lines_mod.TOO_LONG,
    lines_mod.TRUNCATED,
    "unrecognised line",
    "unknown section",
    "line in unknown section",
    "bad kubectl top row",
    "repeated kubectl top row in block",
    "bad cpu.stat line",
    "unknown cpu.stat key",
    "repeated cpu.stat key in block",
    "bad cpu.max line",
    "extra cpu.max line",
    "bad cpuacct.usage line",
    "extra cpuacct.usage line",
    "bad timestamp",
    "duplicate timestamp",
    "out-of-order timestamp",
    "mixed cgroup v1 and v2 keys",
)
R = {r: i for i, r in enumerate(REASONS) if r}


def empty_result(source: str, strict: bool) -> IngestResult:
    """The result for an empty input: no samples, one ``empty file`` skip (raised with ``strict``)."""
    skip = Skip(source, None, "empty file")
    if strict:
        raise InputError(source, None, "empty file")
    return IngestResult("samples", tables.empty("samples"), SkipReport({"empty file": 0}, {}, skip), 0, 0, (source,))


def ingest_result(source: str, rc: np.ndarray, line_text, samples: pl.DataFrame, n: int, strict: bool,
                  notes: dict[str, str] | None = None) -> IngestResult:
    """The samples and the skip report of the per-line reason codes ``rc`` (the
    first skip raised with ``strict``); ``line_text(j)`` gives line ``j``'s text;
    ``notes`` (how the file was read, e.g. ``naive_timestamps_tz``) go to the source's
    entry of :attr:`.IngestResult.provenance`."""
    return samples_result(source, rc, skip_report(source, rc, line_text, strict), samples, n, notes)


def skip_report(source: str, rc: np.ndarray, line_text, strict: bool) -> SkipReport:
    """The skip report of the per-line reason codes ``rc`` (with ``strict``, the first skip raised)."""
    if strict and rc.any():
        raise_first_skip(source, rc, line_text)
    return _skip_report(source, rc, line_text)


def samples_result(source: str, rc: np.ndarray, skipped: SkipReport, samples: pl.DataFrame, n: int,
                   notes: dict[str, str] | None = None) -> IngestResult:
    """:func:`ingest_result` with the skip report made already (:func:`skip_report`)."""
    return IngestResult("samples", samples, skipped, n, int(n - np.count_nonzero(rc)), (source,),
                        provenance={source: {"format": "monitor", **(notes or {})}})


def raise_first_skip(source: str, rc: np.ndarray, line_text) -> None:
    """Raise :class:`~throttlelab.errors.InputError` for the first line with a reason."""
    j = int(np.flatnonzero(rc)[0])
    raise InputError(source, j + 1, REASONS[rc[j]], _excerpt(line_text, j, REASONS[rc[j]]))


def _excerpt(line_text, j: int, reason: str) -> str:
    return "" if reason == lines_mod.BINARY else excerpt(line_text(j))


def _skip_report(source: str, rc: np.ndarray, line_text) -> SkipReport:
    if not rc.any():
        return SkipReport()
    counts = np.bincount(rc, minlength=len(REASONS))
    bad = np.flatnonzero(rc)
    out_counts, examples = {}, {}
    for code in np.flatnonzero(counts[1:]) + 1:
        reason = REASONS[code]
        out_counts[reason] = int(counts[code])
        idx = np.flatnonzero(rc == code)[:EXAMPLES_PER_REASON]
        examples[reason] = tuple(Skip(source, int(j) + 1, reason, _excerpt(line_text, int(j), reason)) for j in idx)
    j = int(bad[0])
    first = Skip(source, j + 1, REASONS[rc[j]], _excerpt(line_text, j, REASONS[rc[j]]))
    return SkipReport(out_counts, examples, first)
