"""The series of one Prometheus file (query JSON or text exposition): metric, label set, and counter, rate or gauge."""

from __future__ import annotations

import datetime as dt
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

from throttlelab.core.metrics import CADVISOR_COUNTERS, CADVISOR_GAUGES
from throttlelab.errors import InputError
from throttlelab.ingest.prometheus.prometheus_json import read_result
from throttlelab.ingest.prometheus.prometheus_text import parse_value, read_text_points
from throttlelab.ingest.skip_counter import SkipCounter

#: Known metric -> its samples column (the catalogue's cAdvisor counters, then the limit's gauges).
METRICS = {**{metric: name for name, metric in CADVISOR_COUNTERS.items()}, **CADVISOR_GAUGES}
GAUGES = set(CADVISOR_GAUGES.values())
#: ``rate`` or ``irate`` in a file name: its unnamed series are rates.
_RATE_NAME = re.compile(r"(^|[^a-z])i?rate([^a-z]|$)", re.IGNORECASE)


@dataclass
class Series:
    """One series of one file: where it came from, its ``__name__`` (if any), the known metric it is,
    its labels and its points (timestamps in ms since the epoch, values in their order)."""

    source: str
    name: str | None  # __name__ as given
    metric: str  # the known metric it is
    labels: dict
    ts: list  # timestamps, ms since the epoch
    values: list  # values, in the order of ts


def metric_of(labels: dict, path: str) -> tuple[str | None, str]:
    """(known metric, how it was found) of a series."""
    name = labels.get("__name__")
    if name is not None:
        return (name, "__name__") if name in METRICS else (None, "__name__ not a CPU metric")
    hits = [m for m in METRICS if m in Path(path).name]
    if hits:
        return max(hits, key=len), "file name (no __name__)"
    return None, "no __name__ and no metric in the file name"


def series_key(labels: dict) -> str:
    """The label set without ``__name__`` (and without ``cpu="total"``), as ``k=v,...`` sorted."""
    items = sorted((k, v) for k, v in labels.items() if k != "__name__" and not (k == "cpu" and v == "total"))
    return ",".join(f"{k}={v}" for k, v in items)


def series_kind(series: Series, forced: str | None) -> tuple[str, str]:
    """(``counter``/``rate``/``gauge``, reason)."""
    column = METRICS[series.metric]
    if column in GAUGES:
        return "gauge", "spec metric (a gauge)"
    if series.name is not None:
        return "counter", f"metric name {series.name}"
    if forced in ("counter", "rate"):
        return forced, "given (--prom-kind)"
    if _RATE_NAME.search(Path(series.source).name):
        return "rate", "rate/irate in the file name"
    values = [v for _, v in sorted(zip(series.ts, series.values))]
    if len(values) < 2:
        return "counter", "assumed: one value, no name, nothing in the file name says rate"
    downs = [(a, b) for a, b in zip(values, values[1:]) if b < a]
    odd = [d for d in downs if d[1] > 0.1 * d[0]]  # a restart falls to near zero
    if odd:
        return "rate", f"values go down {len(odd)} time(s) without a restart (not a counter)"
    return "counter", "values never go down except at a restart"


def json_series(path, skips: SkipCounter) -> tuple[list[Series], int, dict]:
    """Series of a ``/api/v1/query_range`` (matrix) or ``/api/v1/query`` (vector) answer, read lazily; bad
    values are skipped one by one; returns the series, the values counted and the file's provenance."""
    source = str(path)
    rtype, result = read_result(path)  # lazily, one series at a time
    if rtype not in ("matrix", "vector"):
        raise InputError(source, None, "not a matrix or vector result", f"resultType={rtype!r}, expected 'matrix' or 'vector'")
    out, total = [], 0
    for k, item in enumerate(result):
        if not isinstance(item, dict) or not isinstance(item.get("metric", {}), dict):
            total += 1
            skips.add(None, "result item is not a series object", f"series {k}: {str(item)[:60]}")
            continue
        labels = item.get("metric") or {}
        pairs = (item.get("values") or []) if rtype == "matrix" else ([item["value"]] if item.get("value") else [])
        metric, how = metric_of(labels, source)
        total += len(pairs)
        if metric is None:
            for _ in pairs:
                skips.add(None, "metric not used", f"series {k}: {labels.get('__name__')!r} ({how})")
            continue
        try:  # the whole series at once; point by point only when one is bad
            ts = [round(float(t) * 1000) for t, _ in pairs]
            values = [float(v) if isinstance(v, str) else _no(v) for _, v in pairs]
            if not all(map(math.isfinite, values)):
                raise ValueError
        except (TypeError, ValueError):
            ts, values = [], []
            for pair in pairs:
                try:
                    t, text = pair
                    t, v = round(float(t) * 1000), parse_value(str(text))
                    ts.append(t)
                    values.append(v)
                except (TypeError, ValueError):
                    skips.add(None, "bad value", f"series {k} ({metric}): {pair!r}")
        out.append(Series(source, labels.get("__name__"), metric, labels, ts, values))
    return out, total, {"format": "prometheus-json", "result_type": rtype}


def text_series(path, skips: SkipCounter) -> tuple[list[Series], int, dict]:
    """Series of an exposition file.  A sample without a timestamp was scraped with the
    others: it gets the file's latest sample timestamp (cAdvisor stamps counters but not
    its ``container_spec_*`` gauges), or the file's modification time when no sample has
    one; either is stated in the provenance."""
    source = str(path)
    tp = read_text_points(path, skips)
    stamped = [ts for _, _, _, ts, _ in tp.points if ts is not None]
    if stamped:
        fill, how = max(stamped), "the file's latest sample timestamp"
    else:
        fill, how = round(os.path.getmtime(path) * 1000), "the file's modification time"
    by_key: dict[tuple, Series] = {}
    untimed: set[tuple] = set()
    no_ts = 0
    for n, name, labels, ts, value in tp.points:
        labels = {**labels, "__name__": name}
        metric, _ = metric_of(labels, source)
        if metric is None:
            skips.add(n, "metric not used", name)
            continue
        key = (name, series_key(labels))
        if ts is None:
            if key in untimed:
                skips.add(n, "series repeated without a timestamp (several scrapes need timestamps)", name)
                continue
            untimed.add(key)
            ts, no_ts = fill, no_ts + 1
        s = by_key.setdefault(key, Series(source, name, metric, labels, [], []))
        s.ts.append(ts)
        s.values.append(value)
    prov = {"format": "prometheus-text", "lines": tp.lines_total}
    if no_ts:
        prov["untimed_samples"] = f"{no_ts} used samples without a timestamp: {how}, {_iso(fill)}"
    return list(by_key.values()), tp.lines_total, prov


def _no(v):
    raise ValueError(f"value {v!r} is not a string (the API writes values as strings)")


def _iso(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc).isoformat()
