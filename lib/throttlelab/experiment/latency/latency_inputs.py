"""Measured requests and stage timings for the latency notebooks: a latency run store, a requests table, or k6 output."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.experiment.stores import read_latency_store
from throttlelab.ingest.k6 import read_k6_with_stages


def load_measured(path: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Measured (requests, stage_timings) from ``path``.

    ``path`` may be a latency run-store folder (``requests/`` and
    ``stage_timings/`` of :mod:`throttlelab.experiment.latency.latency_runner`), a folder
    holding ``requests.parquet``/``.csv`` (and optionally ``stage_timings.*``), a
    single requests ``.parquet``/``.csv`` file, or k6 output (``.json`` /
    ``.ndjson``, read with :mod:`throttlelab.ingest.k6.k6_stages`: requests and per-stage custom Trend metrics).

    Raises
    ------
    InputError
        If the path is missing or holds no requests table.
    """
    p = Path(path)
    if not p.exists():
        raise InputError(p, None, "not found", "expected a latency run store, a requests table or k6 output")
    if p.is_dir() and (p / "requests").is_dir():
        _, req, st = read_latency_store(p)
        return req, st

    def read(f: Path) -> pl.DataFrame:
        return pl.read_parquet(f) if f.suffix == ".parquet" else pl.read_csv(f, try_parse_dates=True)

    if p.is_dir():
        found = {n: next((p / f"{n}{s}" for s in (".parquet", ".csv") if (p / f"{n}{s}").exists()), None)
                 for n in ("requests", "stage_timings")}
        if found["requests"] is None:
            raise InputError(p, None, "no requests table", "expected requests/ (run store) or requests.parquet/.csv")
        req = tables.conform(read(found["requests"]), "requests", strict=False)
        st = tables.conform(read(found["stage_timings"]), "stage_timings", strict=False) if found["stage_timings"] \
            else tables.empty("stage_timings")
        return req, st
    if p.suffix in (".json", ".ndjson", ".jsonl", ".gz") or (p.suffix == ".csv" and _looks_like_k6_csv(p)):
        return _read_k6(p)
    try:
        return tables.conform(read(p), "requests", strict=False), tables.empty("stage_timings")
    except (ValueError, pl.exceptions.PolarsError) as exc:
        raise InputError(p, None, "not a requests table", str(exc).splitlines()[0]) from None


def _read_k6(p) -> tuple[pl.DataFrame, pl.DataFrame]:
    """k6 ``--out json``/``--out csv``: requests, and stage timings from custom Trend metrics named
    ``stage_<name>`` (:mod:`throttlelab.ingest.k6.k6_stages`); empty stage timings if the script recorded none."""
    req, st = read_k6_with_stages(p)
    return tables.conform(req.frame, "requests", strict=False), tables.conform(st.frame, "stage_timings", strict=False)


def _looks_like_k6_csv(p) -> bool:
    with open(p, encoding="utf-8", errors="replace") as fh:
        return fh.readline().startswith("metric_name,")
