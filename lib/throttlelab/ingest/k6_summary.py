"""k6 ``--summary-export`` JSON -> a tidy ``source, metric, stat, value`` frame."""

from __future__ import annotations

import polars as pl

from throttlelab.errors import InputError
from throttlelab.ingest.json_input import load_json
from throttlelab.ingest.result import IngestResult
from throttlelab.ingest.skip_counter import SkipCounter

SUMMARY_SCHEMA = {"source": pl.String, "metric": pl.String, "stat": pl.String, "value": pl.Float64}


def read_k6_summary(path, *, strict: bool = False) -> IngestResult:
    """k6 ``--summary-export`` JSON -> a ``source, metric, stat, value`` frame (``table="k6_summary"``).

    Counts are of metric statistics (``unit="values"``); a non-numeric one is skipped.
    """
    source = str(path)
    doc = load_json(path)
    metrics = doc.get("metrics") if isinstance(doc, dict) else None
    if not isinstance(metrics, dict):
        raise InputError(source, None, "not a k6 summary export", "no 'metrics' object")
    skips = SkipCounter(source)
    rows, total = [], 0
    for name, stats in metrics.items():
        if not isinstance(stats, dict):
            total += 1
            skips.add(None, "metric is not an object", f"{name}: {stats!r}")
            continue
        for stat, value in stats.items():
            if stat == "thresholds" or isinstance(value, dict):
                continue
            total += 1
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                skips.add(None, "non-numeric statistic", f"{name}.{stat}: {value!r}")
                continue
            rows.append({"source": source, "metric": name, "stat": stat, "value": float(value)})
    report = skips.report()
    if strict and report.first is not None:
        raise InputError(source, None, report.first.reason, report.first.excerpt)
    frame = pl.DataFrame(rows, schema=SUMMARY_SCHEMA)
    return IngestResult("k6_summary", frame, report, total, total - report.total, (source,), unit="values")
