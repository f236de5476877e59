"""k6 results -> the canonical *requests* table (or a summary frame).

Formats
-------
``--out json`` (NDJSON)
    ``{"type": "Metric", ...}`` and ``{"type": "Point", "metric": ..., "data":
    {"time": RFC 3339, "value": ms, "tags": {...}}}`` lines.  Each
    ``http_req_duration`` point is one request.
``--out csv``
    ``metric_name,timestamp,metric_value,...,status,...,url,...`` rows; each
    ``http_req_duration`` row is one request.  The timestamp is in any of k6's
    ``timeFormat`` values (``K6_CSV_TIME_FORMAT``): ``unix`` (seconds, the
    default), ``unix_milli``, ``unix_micro``, ``unix_nano`` (told apart by
    magnitude: a run after 1973 has 11+ digits in ms), ``rfc3339`` and
    ``rfc3339_nano`` (with their offset); the file's format is that of its first
    row, recorded in the result's provenance, and a row in another form is
    skipped with its reason.
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
of per-stage custom Trend metrics; :mod:`throttlelab.ingest.k6.k6_stages` turns them
into the *stage_timings* table.
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path
from typing import Callable
from urllib.parse import parse_qsl

import polars as pl

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.input_files import read_input
from throttlelab.ingest.result import IngestResult
from throttlelab.ingest.k6.k6_ndjson import scan_ndjson
from throttlelab.ingest.k6.k6_scan import REQUEST_METRIC, VUS_METRIC, Scan, no_stage, vu_iter
from throttlelab.ingest.skip_counter import SkipCounter, usable_lines

def names_from_path(path: str | Path) -> tuple[str, str]:
    """(experiment, run_id) from ``<experiment>__<run_id>.<ext>`` or ("k6", stem)."""
    stem = Path(path).name.split(".")[0]
    if "__" in stem:
        exp, run = stem.split("__", 1)
        return exp or "k6", run or stem
    return "k6", stem


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


def requests_result(scan: Scan, experiment: str, run_id: str, strict: bool = False,
                    load: float | None = None) -> IngestResult:
    """The requests table of a scan (``strict``: raise at the first skipped line)."""
    report = scan.skips.report()
    if strict and report.first is not None:
        f = report.first
        raise InputError(scan.source, f.line, f.reason, f.excerpt)
    frame = _requests(scan.requests, experiment, run_id, load)
    n = scan.lines_total
    prov = {"format": scan.format}
    if scan.time_format:
        prov["time_format"] = scan.time_format
    return IngestResult("requests", frame, report, n, n - report.total, (scan.source,),
                        provenance={scan.source: prov})


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
#: (upper bound of the integer, format name, nanoseconds per unit): a time after 1973 decides.
_UNIX_UNITS = ((10**11, "unix", 10**9), (10**14, "unix_milli", 10**6), (10**17, "unix_micro", 10**3),
               (10**20, "unix_nano", 1))


def csv_time(text: str) -> tuple[dt.datetime, str]:
    """A k6 CSV timestamp -> (UTC time, k6 ``timeFormat`` name); ValueError when it is none of them.

    >>> csv_time("1595325560")[1], csv_time("1595325560123456789")
    ('unix', (datetime.datetime(2020, 7, 21, 9, 59, 20, 123456, tzinfo=datetime.timezone.utc), 'unix_nano'))
    """
    t = text.strip()
    if t.isdigit():
        v = int(t)
        for bound, name, ns_per in _UNIX_UNITS:
            if v < bound:
                secs, ns = divmod(v * ns_per, 10**9)
                return _EPOCH + dt.timedelta(seconds=secs, microseconds=ns // 1000), name
        raise ValueError(t)
    whole, dot, frac = t.partition(".")
    if dot and whole.isdigit() and frac.isdigit():  # seconds with a fraction (some exporters): exact to the us
        return _EPOCH + dt.timedelta(seconds=int(whole), microseconds=int(frac[:6].ljust(6, "0"))), "unix"
    if "T" in t or "-" in t:
        when = dt.datetime.fromisoformat(t.replace("Z", "+00:00"))
        if when.tzinfo is None:
            raise ValueError(f"no UTC offset: {t}")
        frac = t.split(".", 1)[1] if "." in t else ""
        return when.astimezone(dt.timezone.utc), "rfc3339_nano" if frac else "rfc3339"
    raise ValueError(t)


def scan_json(path, stage_of: Callable[[str], str | None] = no_stage, *, progress: bool | None = None) -> Scan:
    """One lazy pass over k6 ``--out json`` NDJSON (see :class:`Scan` and :mod:`.k6_ndjson`)."""
    return scan_ndjson(path, stage_of, progress=progress)


def read_k6_json(path, *, experiment: str | None = None, run_id: str | None = None, strict: bool = False,
                 progress: bool | None = None) -> IngestResult:
    """k6 ``--out json`` NDJSON -> requests (one per ``http_req_duration`` point).

    Metric lines and points of other metrics are used (they describe the run)
    but yield no rows; undecodable or malformed lines are skipped and counted.
    ``load`` is the peak of the ``vus`` gauge when the file has one.
    """
    exp0, run0 = names_from_path(path)
    scan = scan_json(path, progress=progress)
    return requests_result(scan, experiment or exp0, run_id or run0, strict, scan.peak_vus)


def scan_csv(path, stage_of: Callable[[str], str | None] = no_stage) -> Scan:
    """One pass over k6 ``--out csv`` (see :class:`Scan`); ``vu``/``iter`` from columns or the ``metadata`` field."""
    lines = lines_mod.split_lines(read_input(path), str(path))
    scan = Scan(str(path), len(lines), SkipCounter(str(path)), format="k6-csv")
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
            skips.add(n, "wrong number of CSV fields", f"{len(fields)} fields, expected {len(header)}")
            continue
        rec = dict(zip(header, fields))
        metric = rec["metric_name"]
        stage = stage_of(metric)
        if metric not in (REQUEST_METRIC, VUS_METRIC) and stage is None:
            continue
        try:
            end, fmt = csv_time(rec["timestamp"])
            value = float(rec["metric_value"])
        except (ValueError, OverflowError):
            skips.add(n, "bad k6 CSV row (timestamp/value)", text)
            continue
        if scan.time_format is None:
            scan.time_format = fmt
        elif fmt != scan.time_format and not {fmt, scan.time_format} <= {"rfc3339", "rfc3339_nano"}:
            skips.add(n, f"timestamp not in the file's time format ({scan.time_format})", text)
            continue
        extra = dict(parse_qsl(rec.get("extra_tags") or ""))
        vu, it = vu_iter({**extra, **{k: rec[k] for k in ("vu", "iter") if k in rec}},
                          dict(parse_qsl(rec.get("metadata") or "")))
        scan.add_point(metric, stage, end, value, vu, it, rec, n)
    return scan


def read_k6_csv(path, *, experiment: str | None = None, run_id: str | None = None, strict: bool = False) -> IngestResult:
    """k6 ``--out csv`` -> requests (one per ``http_req_duration`` row)."""
    exp0, run0 = names_from_path(path)
    scan = scan_csv(path)
    return requests_result(scan, experiment or exp0, run_id or run0, strict, scan.peak_vus)
