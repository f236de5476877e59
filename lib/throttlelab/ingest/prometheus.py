"""Prometheus ``/api/v1/query_range`` JSON (cAdvisor counters) -> samples.

A file holds ``{"status": "success", "data": {"resultType": "matrix",
"result": [{"metric": {labels}, "values": [[unix_seconds, "value"], ...]}]}}``.
Series are recognised by ``__name__`` (or, for a query that dropped it, by the
file name containing the metric name):

========================================== =====================
metric                                     samples column
========================================== =====================
``container_cpu_usage_seconds_total``      ``usage_seconds``
``container_cpu_cfs_periods_total``        ``nr_periods``
``container_cpu_cfs_throttled_periods_total`` ``nr_throttled``
``container_cpu_cfs_throttled_seconds_total`` ``throttled_seconds``
``container_spec_cpu_quota``               quota (us) -> ``limit_cores``
``container_spec_cpu_period``              ``period_us``
========================================== =====================

Rows are keyed by (pod, container, timestamp); several files (one per query)
are merged by :func:`read_prometheus` given all of them.  Counts are of values
(``unit="values"``); a value that is not a finite number is skipped.
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

import polars as pl

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.ingest.counter_segments import assign_segments
from throttlelab.ingest.json_input import load_json
from throttlelab.ingest.skip_counter import SkipCounter
from throttlelab.ingest.result import IngestResult

METRICS = {
    "container_cpu_usage_seconds_total": "usage_seconds",
    "container_cpu_cfs_periods_total": "nr_periods",
    "container_cpu_cfs_throttled_periods_total": "nr_throttled",
    "container_cpu_cfs_throttled_seconds_total": "throttled_seconds",
    "container_spec_cpu_quota": "quota",
    "container_spec_cpu_period": "period_us",
}
_INT = {"nr_periods", "nr_throttled", "quota", "period_us"}


def _metric_name(labels: dict, path: str) -> str | None:
    name = labels.get("__name__")
    if name in METRICS:
        return name
    if name is None:
        hits = [m for m in METRICS if m in Path(path).name]
        return max(hits, key=len) if hits else None
    return None


def _points(path: str | Path, skips: SkipCounter) -> tuple[list[dict], int]:
    source = str(path)
    doc = load_json(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("data"), dict):
        raise InputError(source, None, "not a Prometheus API response", "no 'data' object")
    if doc.get("status") not in (None, "success"):
        raise InputError(source, None, "Prometheus query failed", str(doc.get("error", doc.get("status"))))
    data = doc["data"]
    if data.get("resultType") != "matrix":
        raise InputError(source, None, "not a range query result", f"resultType={data.get('resultType')!r}, expected 'matrix'")
    rows, total = [], 0
    for k, series in enumerate(data.get("result") or []):
        labels = series.get("metric") or {}
        values = series.get("values") or []
        name = _metric_name(labels, source)
        if name is None:
            total += len(values)
            for _ in values:
                skips.add(None, "metric not used", f"series {k}: {labels.get('__name__')!r}")
            continue
        column = METRICS[name]
        pod = labels.get("pod") or labels.get("pod_name")
        container = labels.get("container") or labels.get("container_name")
        for pair in values:
            total += 1
            try:
                ts, text = pair
                value = float(text)
                if not math.isfinite(value):
                    raise ValueError
                when = dt.datetime.fromtimestamp(float(ts), dt.timezone.utc)
            except (TypeError, ValueError):
                skips.add(None, "bad value", f"series {k} ({name}): {pair!r}")
                continue
            rows.append({"timestamp": when, "pod": pod, "container": container, "column": column, "value": value})
    return rows, total


def read_prometheus(paths, *, strict: bool = False) -> IngestResult:
    """One or more query_range files -> samples, merged on (pod, container, timestamp)."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    sources = tuple(str(p) for p in paths)
    skips = SkipCounter(", ".join(sources) if len(sources) > 1 else sources[0])
    rows, total = [], 0
    for p in paths:
        s = SkipCounter(str(p))
        r, t = _points(p, s)
        if strict and s.first is not None:
            raise InputError(p, None, s.first.reason, s.first.excerpt)
        skips.merge(s)
        rows.extend(r)
        total += t
    report = skips.report()
    if not rows:
        return IngestResult("samples", tables.empty("samples"), report, total, total - report.total, sources, "values")
    long = pl.DataFrame(
        rows,
        schema={"timestamp": tables.UTC_TIME, "pod": pl.String, "container": pl.String, "column": pl.String, "value": pl.Float64},
    )
    wide = long.pivot(on="column", index=["pod", "container", "timestamp"], values="value", aggregate_function="first")
    for col in METRICS.values():
        if col not in wide.columns:
            wide = wide.with_columns(pl.lit(None, dtype=pl.Float64).alias(col))
    c = pl.col
    wide = wide.sort(["pod", "container", "timestamp"], nulls_last=True).select(
        "timestamp",
        source=pl.lit(sources[0] if len(sources) == 1 else ",".join(sources)),
        line=pl.lit(0, dtype=pl.Int64),
        pod="pod",
        container="container",
        series=pl.concat_str(c("pod").fill_null(""), c("container").fill_null(""), separator="/"),
        usage_seconds="usage_seconds",
        nr_periods=c("nr_periods").round(0).cast(pl.Int64),
        nr_throttled=c("nr_throttled").round(0).cast(pl.Int64),
        throttled_seconds="throttled_seconds",
        limit_cores=pl.when((c("quota") > 0) & (c("period_us") > 0)).then(c("quota") / c("period_us")),
        period_us=c("period_us").round(0).cast(pl.Int64),
    )
    samples = tables.conform(assign_segments(wide, by="series"), "samples")
    return IngestResult("samples", samples, report, total, total - report.total, sources, "values")
