"""k6 results -> the canonical *requests* table (or a summary frame).

Formats
-------
``--out json`` (NDJSON)
    ``{"type": "Metric", ...}`` and ``{"type": "Point", "metric": ..., "data":
    {"time": RFC 3339, "value": ms, "tags": {...}}}`` lines.  Each
    ``http_req_duration`` point is one request.
``--out csv``
    ``metric_name,timestamp,metric_value,...,status,...,url,...`` rows
    (timestamp in Unix seconds); each ``http_req_duration`` row is one request.
``--summary-export`` JSON
    Aggregates only (``{"metrics": {name: {"avg": .., "p(95)": .., ...}}}``):
    read by :func:`read_k6_summary` into a ``metric, stat, value`` frame.

k6 stamps an HTTP sample when the request ends; ``started_at`` is that time
minus the duration.  ``status`` is ``ok`` for HTTP 1xx-3xx with
``expected_response`` not false, ``error`` otherwise (``refused`` when there
was no response and the error names a refused connection, ``timeout`` when it
names a timeout).

Rows get ``experiment`` and ``run_id`` from the file name: ``<experiment>__<run_id>.json``,
or ``k6`` and the file stem (override with the arguments).  ``vu`` comes from the
``vu`` system tag or metadata when k6 wrote it (``--system-tags`` with ``vu``).

One scan of a file (:func:`scan_json`, :func:`scan_csv`) also collects the points
of per-stage custom Trend metrics; :mod:`throttlelab.ingest.k6_stages` turns them
into the *stage_timings* table.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Callable
from urllib.parse import parse_qsl

import polars as pl

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.result import IngestResult
from throttlelab.ingest.skip_counter import SkipCounter, usable_lines

REQUEST_METRIC = "http_req_duration"
VUS_METRIC = "vus"


def names_from_path(path: str | Path) -> tuple[str, str]:
    """(experiment, run_id) from ``<experiment>__<run_id>.<ext>`` or ("k6", stem)."""
    stem = Path(path).name.split(".")[0]
    if "__" in stem:
        exp, run = stem.split("__", 1)
        return exp or "k6", run or stem
    return "k6", stem


def _status(http: int | None, expected: str | None, error: str | None) -> str:
    if http and 100 <= http < 400 and expected != "false":
        return "ok"
    text = (error or "").lower()
    if not http and "refused" in text:
        return "refused"
    if not http and ("timeout" in text or "deadline" in text):
        return "timeout"
    return "error"


def _requests(rows: list[dict], experiment: str, run_id: str, load: float | None = None) -> pl.DataFrame:
    df = pl.DataFrame(
        rows,
        schema={
            "end": pl.Datetime("us", "UTC"),
            "latency_seconds": pl.Float64,
            "http_status": pl.Int64,
            "status": pl.String,
            "error": pl.String,
            "endpoint": pl.String,
            "vu": pl.Int64,
            "iter": pl.Int64,
        },
    )
    df = df.with_row_index("request_id").select(
        experiment=pl.lit(experiment),
        run_id=pl.lit(run_id),
        endpoint="endpoint",
        request_id=pl.col("request_id").cast(pl.Int64),
        started_at=pl.col("end") - pl.duration(microseconds=(pl.col("latency_seconds") * 1e6).round(0).cast(pl.Int64)),
        latency_seconds=pl.when(pl.col("http_status") > 0).then(pl.col("latency_seconds")),
        status="status",
        http_status=pl.when(pl.col("http_status") > 0).then(pl.col("http_status")),
        error="error",
        vu="vu",
        load=pl.lit(load, pl.Float64),
    )
    return tables.conform(df, "requests")


@dataclass
class Scan:
    """What one pass over a k6 ``--out json``/``--out csv`` file found.

    Attributes
    ----------
    requests
        One dict per ``http_req_duration`` point: ``end``, ``latency_seconds``,
        ``http_status``, ``status``, ``error``, ``endpoint``, ``vu``, ``iter``.
    stage_points
        One dict per point of a metric that ``stage_of`` names a stage: ``stage``,
        ``metric``, ``time``, ``value`` (as written, ms for k6 time trends), ``vu``,
        ``iter``, ``line``.
    peak_vus
        Largest value of the ``vus`` gauge (k6's active virtual users); None if absent.
    """

    source: str
    lines_total: int
    skips: SkipCounter
    requests: list[dict] = field(default_factory=list)
    stage_points: list[dict] = field(default_factory=list)
    peak_vus: float | None = None

    def note_vus(self, value: float) -> None:
        self.peak_vus = value if self.peak_vus is None else max(self.peak_vus, value)

    def add_point(self, metric: str, stage: str | None, end: dt.datetime, value: float, vu, it,
                  tags: Mapping[str, Any], line: int) -> None:
        """File one point (JSON and CSV alike): a ``vus`` gauge value, a stage timing or a request.

        ``tags`` holds the point's tags (``status``, ``expected_response``,
        ``error``, ``name``, ``url``) as either format writes them.
        """
        if metric == VUS_METRIC:
            self.note_vus(value)
        elif stage is not None:
            self.stage_points.append({"stage": stage, "metric": metric, "time": end, "value": value, "vu": vu,
                                      "iter": it, "line": line})
        else:
            http = _int(tags.get("status"))
            err = tags.get("error") or None
            self.requests.append({"end": end, "latency_seconds": value / 1000.0, "http_status": http,
                                  "status": _status(http, tags.get("expected_response"), err), "error": err,
                                  "endpoint": tags.get("name") or tags.get("url") or None, "vu": vu, "iter": it})


def requests_result(scan: Scan, experiment: str, run_id: str, strict: bool = False,
                    load: float | None = None) -> IngestResult:
    """The requests table of a scan (``strict``: raise at the first skipped line)."""
    report = scan.skips.report()
    if strict and report.first is not None:
        f = report.first
        raise InputError(scan.source, f.line, f.reason, f.excerpt)
    frame = _requests(scan.requests, experiment, run_id, load)
    n = scan.lines_total
    return IngestResult("requests", frame, report, n, n - report.total, (scan.source,))


def _vu_iter(tags: dict, metadata: dict) -> tuple[int | None, int | None]:
    """``vu`` and ``iter`` from a point's tags or metadata (k6 writes them only when asked)."""
    get = (lambda k: metadata.get(k) if metadata.get(k) not in (None, "") else tags.get(k))
    return _int(get("vu")), _int(get("iter"))


def _int(v) -> int | None:
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def _no_stage(metric: str) -> str | None:
    return None


def scan_json(path, stage_of: Callable[[str], str | None] = _no_stage) -> Scan:
    """One pass over k6 ``--out json`` NDJSON (see :class:`Scan`)."""
    lines = lines_mod.read_lines(path)
    scan = Scan(str(path), len(lines), SkipCounter(str(path)))
    skips = scan.skips
    for n, text in usable_lines(lines, skips):
        try:
            obj = json.loads(text)
        except ValueError:
            skips.add(n, "not JSON", text)
            continue
        if not isinstance(obj, dict) or obj.get("type") not in ("Metric", "Point"):
            skips.add(n, "not a k6 Metric or Point", text)
            continue
        metric = obj.get("metric")
        stage = stage_of(metric) if isinstance(metric, str) and obj["type"] == "Point" else None
        if obj["type"] == "Metric" or (metric not in (REQUEST_METRIC, VUS_METRIC) and stage is None):
            continue
        data = obj.get("data") or {}
        tags = data.get("tags") or {}
        try:
            end = dt.datetime.fromisoformat(str(data["time"]).replace("Z", "+00:00"))
            value = float(data["value"])
        except (KeyError, TypeError, ValueError):
            skips.add(n, "bad k6 point (time/value)", text)
            continue
        if end.tzinfo is None:
            end = end.replace(tzinfo=dt.timezone.utc)
        vu, it = _vu_iter(tags, data.get("metadata") or {})
        scan.add_point(metric, stage, end, value, vu, it, tags, n)
    return scan


def read_k6_json(path, *, experiment: str | None = None, run_id: str | None = None, strict: bool = False) -> IngestResult:
    """k6 ``--out json`` NDJSON -> requests (one per ``http_req_duration`` point).

    Metric lines and points of other metrics are used (they describe the run)
    but yield no rows; undecodable or malformed lines are skipped and counted.
    ``load`` is the peak of the ``vus`` gauge when the file has one.
    """
    exp0, run0 = names_from_path(path)
    scan = scan_json(path)
    return requests_result(scan, experiment or exp0, run_id or run0, strict, scan.peak_vus)


def scan_csv(path, stage_of: Callable[[str], str | None] = _no_stage) -> Scan:
    """One pass over k6 ``--out csv`` (see :class:`Scan`); ``vu``/``iter`` from columns or the ``metadata`` field."""
    lines = lines_mod.read_lines(path)
    scan = Scan(str(path), len(lines), SkipCounter(str(path)))
    skips = scan.skips
    header: list[str] | None = None
    for n, text in usable_lines(lines, skips):
        try:
            fields = next(csv.reader([text]))
        except csv.Error:
            skips.add(n, "bad CSV row", text)
            continue
        if header is None:
            if "metric_name" in fields and "timestamp" in fields and "metric_value" in fields:
                header = fields
            else:
                skips.add(n, "no k6 CSV header before this line", text)
            continue
        if len(fields) != len(header):
            skips.add(n, "wrong number of CSV fields", text)
            continue
        rec = dict(zip(header, fields))
        metric = rec["metric_name"]
        stage = stage_of(metric)
        if metric not in (REQUEST_METRIC, VUS_METRIC) and stage is None:
            continue
        try:
            end = dt.datetime.fromtimestamp(float(rec["timestamp"]), dt.timezone.utc)
            value = float(rec["metric_value"])
        except ValueError:
            skips.add(n, "bad k6 CSV row (timestamp/value)", text)
            continue
        extra = dict(parse_qsl(rec.get("extra_tags") or ""))
        vu, it = _vu_iter({**extra, **{k: rec[k] for k in ("vu", "iter") if k in rec}},
                          dict(parse_qsl(rec.get("metadata") or "")))
        scan.add_point(metric, stage, end, value, vu, it, rec, n)
    return scan


def read_k6_csv(path, *, experiment: str | None = None, run_id: str | None = None, strict: bool = False) -> IngestResult:
    """k6 ``--out csv`` -> requests (one per ``http_req_duration`` row)."""
    exp0, run0 = names_from_path(path)
    scan = scan_csv(path)
    return requests_result(scan, experiment or exp0, run_id or run0, strict, scan.peak_vus)
