"""Runs tables from published tables: one CSV row per (limit, threads[, replicate]) cell.

The layout (documented in ``data/published/README.md``)::

    limit,threads,throughput_rps,latency_p50_ms,latency_p999_ms[,replicate,experiment,workload,node,load,note]
    2000m,1,28893.18,1.46,19.70

``limit``
    CPU limit: cores (``2``, ``0.5``), millicores (``2000m``) or ``unlimited``.
``threads``
    A positive integer or ``auto``.
metrics (one or more)
    Any response metric by its runs column name (``throughput_rps``,
    ``latency_p99_seconds``, ``wall_seconds``, ... see
    :data:`throttlelab.tables.RESPONSE_METRICS`), or a time metric in
    milliseconds with ``_ms`` in place of ``_seconds`` (``latency_p50_ms``).
    An empty cell is a missing value.
``replicate`` (optional)
    Replicate id within the cell (integer); several rows of one cell are replicates.
    Without it every row is replicate 0 and a second row of the same cell is an error.
``experiment``, ``workload``, ``node``, ``load``, ``note`` (optional)
    Labels; ``node`` may name the host's CPU count (``"... (24 cpus)"``).

Every row becomes one ``runs`` row with ``backend = "published"`` and
``status = "ok"``; a bad row stops the read with ``file:line: what was
expected`` (a transcribed table has no row to spare).
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import polars as pl

from throttlelab import tables
from throttlelab.errors import InputError

REQUIRED = ("limit", "threads")
LABELS = ("experiment", "workload", "node", "load", "note", "replicate")


def metric_columns(header: list[str]) -> dict[str, tuple[str, float]]:
    """CSV column -> (runs column, factor to canonical units) for every metric column of ``header``."""
    out = {}
    for col in header:
        if col in tables.RESPONSE_METRICS:
            out[col] = (col, 1.0)
        elif col.endswith("_ms") and f"{col[:-3]}_seconds" in tables.RESPONSE_METRICS:
            out[col] = (f"{col[:-3]}_seconds", 1e-3)
    return out


def parse_limit(text: str) -> float | None:
    """``"2000m"`` -> 2.0, ``"2"`` -> 2.0, ``"unlimited"`` -> None; ``ValueError`` otherwise."""
    t = text.strip().lower()
    if t == "unlimited":
        return None
    cores = float(t[:-1]) / 1000.0 if t.endswith("m") else float(t)
    if not math.isfinite(cores) or cores <= 0:
        raise ValueError(text)
    return round(cores, 9)


def read_published_runs(path: str | Path) -> pl.DataFrame:
    """A canonical runs table from a published-table CSV (see the module doc).

    Raises
    ------
    InputError
        Naming the file and line: a missing file or column, a bad limit, thread
        count or metric value, or a duplicated cell without replicate ids.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(path, None, "published runs table not found")
    with path.open(newline="") as fh:
        reader = csv.DictReader(fh)
        header = [h.strip() for h in (reader.fieldnames or [])]
        missing = [c for c in REQUIRED if c not in header]
        if missing:
            raise InputError(path, 1, f"missing column(s) {', '.join(missing)}", "expected limit,threads,<metric>...")
        metrics = metric_columns(header)
        if not metrics:
            raise InputError(path, 1, "no metric column",
                             f"expected one of {', '.join(tables.RESPONSE_METRICS)} (or *_ms for times)")
        rows, seen = [], {}
        for i, raw in enumerate(reader):
            line = i + 2
            rec = {(k or "").strip(): (v or "").strip() for k, v in raw.items()}
            rows.append(_row(path, line, rec, metrics, seen))
    if not rows:
        raise InputError(path, None, "no rows", "a published runs table needs at least one row")
    df = pl.DataFrame(rows, schema_overrides={"cpu_limit_cores": pl.Float64, "load": pl.Float64, "node": pl.String,
                                              **{c: pl.Float64 for c, _ in metrics.values()}})
    return tables.conform(df, "runs", strict=False)


def _row(path: Path, line: int, rec: dict, metrics: dict, seen: dict) -> dict:
    try:
        limit = parse_limit(rec["limit"])
    except ValueError:
        raise InputError(path, line, f"bad limit {rec['limit']!r}", "expected cores (2), millicores (2000m) or unlimited") from None
    threads = rec["threads"].lower()
    if threads != "auto" and not (threads.isdigit() and int(threads) > 0):
        raise InputError(path, line, f"bad threads {rec['threads']!r}", "expected a positive integer or auto")
    replicate = rec.get("replicate") or ""
    if replicate and not replicate.isdigit():
        raise InputError(path, line, f"bad replicate {replicate!r}", "expected an integer id")
    cell = (limit, threads, int(replicate or 0))
    if cell in seen:
        raise InputError(path, line, "duplicate cell", f"same limit, threads and replicate as line {seen[cell]}; "
                                                       "add a replicate column to give replicates")
    seen[cell] = line
    out = {"experiment": rec.get("experiment") or path.stem, "run_id": f"{path.stem}-{line}", "backend": "published",
           "workload": rec.get("workload") or "published", "cpu_limit_cores": limit, "threads": threads,
           "contention": 0.0, "replicate": cell[2], "status": "ok", "warmup": False, "node": rec.get("node") or None}
    if rec.get("load"):
        out["load"] = _number(path, line, "load", rec["load"])
    for col, (name, factor) in metrics.items():
        text = rec.get(col, "")
        out[name] = None if text == "" else _number(path, line, col, text) * factor
    return out


def _number(path: Path, line: int, col: str, text: str) -> float:
    try:
        value = float(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise InputError(path, line, f"bad {col} {text!r}", "expected a number") from None
    if not math.isfinite(value) or value < 0:
        raise InputError(path, line, f"bad {col} {text!r}", "expected a finite number >= 0")
    return value
