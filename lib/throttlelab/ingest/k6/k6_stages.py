"""Per-stage timings from k6 output: custom Trend metrics -> the *stage_timings* table.

A k6 script that reads per-stage times from each response and records them as
custom Trend metrics (as the semaphore wiki's did)::

    const embedding = new Trend("stage_embedding", true);
    ...
    const res = http.post(url, body);
    embedding.add(res.json().timings.embedding * 1000);

writes one point per request and stage into ``--out json`` / ``--out csv``.
:func:`read_k6_with_stages` reads the requests and these points in one pass:
a metric is a stage when its name starts with ``prefix`` (``stage_embedding`` ->
stage ``embedding``; ``stage_total`` -> ``total``) or is a key of ``stages``
(e.g. ``{"total_duration": "total"}``).  Values are in the script's unit,
milliseconds by k6's convention (``units_per_second=1000``).

Linking a stage value to its request: when the points carry k6's ``vu`` and
``iter`` (tags or metadata, written with ``--system-tags`` including ``vu`` and
``iter``), the value belongs to the last request of the same VU iteration that
ended at or before it (the script records it after reading the response), and
gets that request's ``request_id``.  Without ``vu``/``iter`` there is no safe
link under concurrency: such values get negative ids (-1, -2, ... in file
order), so they still count in per-stage statistics (avg, p95, tests across
configurations) but never join a request by accident (:func:`linked` tells them
apart).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import polars as pl

from throttlelab import tables
from throttlelab.ingest.k6 import k6
from throttlelab.ingest.result import IngestResult

DEFAULT_PREFIX = "stage_"


def stage_namer(prefix: str = DEFAULT_PREFIX, stages: dict[str, str] | None = None) -> Callable[[str], str | None]:
    """A function metric name -> stage name (None for metrics that are not stages)."""
    mapping = dict(stages or {})

    def name(metric: str) -> str | None:
        if metric in mapping:
            return mapping[metric]
        if prefix and metric.startswith(prefix) and len(metric) > len(prefix):
            return metric[len(prefix):]
        return None

    return name


def is_k6_csv(path: str | Path) -> bool:
    """Whether ``path`` is k6 ``--out csv`` (by suffix or its header) rather than ``--out json``."""
    p = Path(path)
    if p.suffix == ".csv":
        return True
    if p.suffix in (".json", ".ndjson", ".jsonl", ".gz"):
        return False
    with open(p, encoding="utf-8", errors="replace") as fh:
        return fh.readline().startswith("metric_name,")


def read_k6_with_stages(path, *, prefix: str = DEFAULT_PREFIX, stages: dict[str, str] | None = None,
                        experiment: str | None = None, run_id: str | None = None, config: str | None = None,
                        load: float | None = None, units_per_second: float = 1000.0,
                        strict: bool = False) -> tuple[IngestResult, IngestResult]:
    """(requests, stage_timings) of one k6 ``--out json`` or ``--out csv`` file, from one pass.

    Parameters
    ----------
    prefix, stages
        Which metrics are stages (see the module docstring).
    config
        Configuration label for both tables (k6 output does not know it).
    load
        Offered load; default the peak of k6's ``vus`` gauge in the file.
    units_per_second
        Units of the stage values per second (1000: milliseconds; values are divided by it).
    strict
        Raise :class:`~throttlelab.errors.InputError` at the first skipped line.

    Both results count the same lines (one scan): ``lines_used + skipped.total == lines_total``.
    """
    exp0, run0 = k6.names_from_path(path)
    experiment, run_id = experiment or exp0, run_id or run0
    namer = stage_namer(prefix, stages)
    scan = k6.scan_csv(path, namer) if is_k6_csv(path) else k6.scan_json(path, namer)
    load = scan.peak_vus if load is None else load
    req = k6.requests_result(scan, experiment, run_id, strict, load)
    if config is not None:
        req = IngestResult(req.table, req.frame.with_columns(pl.lit(config).alias("config")), req.skipped,
                           req.lines_total, req.lines_used, req.sources, req.unit)
    frame = _stage_frame(scan, experiment, run_id, config, load, units_per_second)
    return req, IngestResult("stage_timings", frame, req.skipped, req.lines_total, req.lines_used, req.sources, req.unit)


def read_k6_stage_timings(path, **kwargs) -> IngestResult:
    """The stage_timings result of :func:`read_k6_with_stages` (same keyword arguments)."""
    return read_k6_with_stages(path, **kwargs)[1]


def linked() -> pl.Expr:
    """Filter expression: stage values linked to a request (``request_id >= 0``)."""
    return pl.col("request_id") >= 0


def _stage_frame(scan: k6.Scan, experiment: str, run_id: str, config: str | None, load: float | None,
                 units_per_second: float) -> pl.DataFrame:
    if not scan.stage_points:
        return tables.empty("stage_timings")
    keys = {"vu": pl.Int64, "iter": pl.Int64}
    points = pl.DataFrame(scan.stage_points, schema={"stage": pl.String, "metric": pl.String, "time": tables.UTC_TIME,
                                                     "value": pl.Float64, **keys, "line": pl.Int64})
    reqs = pl.DataFrame(scan.requests, schema={"end": tables.UTC_TIME, **keys}).select(
        "vu", "iter", pl.col("end").alias("time"), pl.int_range(pl.len(), dtype=pl.Int64).alias("request_id"))
    reqs = reqs.drop_nulls(["vu", "iter"]).sort("time")
    points = points.sort("time")
    matched = points.join_asof(reqs, on="time", by=["vu", "iter"], strategy="backward", check_sortedness=False)
    nearest = points.join_asof(reqs, on="time", by=["vu", "iter"], strategy="nearest", check_sortedness=False)
    ids = matched["request_id"].fill_null(nearest["request_id"])
    out = matched.with_columns(ids.alias("request_id")).sort("line")
    unlinked = out["request_id"].is_null()
    negative = -(unlinked.cast(pl.Int64).cum_sum())
    out = out.with_columns(pl.when(unlinked).then(negative).otherwise(pl.col("request_id")).alias("request_id"))
    # numpy true division: polars may multiply by the reciprocal (350 ms -> 0.35000000000000003 s)
    seconds = pl.Series("seconds", out["value"].to_numpy() / units_per_second)
    return tables.conform(out.with_columns(seconds).select(
        experiment=pl.lit(experiment), run_id=pl.lit(run_id), config=pl.lit(config, pl.String),
        load=pl.lit(load, pl.Float64), request_id="request_id", stage="stage", seconds="seconds"), "stage_timings")
