"""Loaders for the bundled published datasets (``data/published/``).

Each loader reads one CSV transcribed from a user's write-up (see
``data/published/README.md``) and returns a tidy polars frame: the ffmpeg sweep
as a canonical *runs* table, the others as the summary tables their write-ups
published (those have no per-run or per-request rows to recover).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl

from throttlelab import tables
from throttlelab.errors import InputError

#: Folder of the bundled datasets in a checkout (``<repo>/data/published``).
PUBLISHED_DIR = Path(__file__).resolve().parents[4] / "data" / "published"

FILES = {
    "ffmpeg": "ffmpeg_cpu_limit_sweep.csv",
    "contention": "contention_response_time.csv",
    "semaphore": "embedding_semaphore_k6.csv",
    "go_active_time": "go_json_cpu_limit.csv",
    "mediamtx": "mediamtx_optimization.csv",
    "automaxprocs": "automaxprocs_gomaxprocs.csv",
}


def published_path(name: str, directory: str | Path | None = None) -> Path:
    """Path of a bundled dataset by short name (see :data:`FILES`)."""
    try:
        fname = FILES[name]
    except KeyError:
        raise KeyError(f"unknown published dataset {name!r}; known: {', '.join(FILES)}") from None
    return Path(directory or PUBLISHED_DIR) / fname


def _read(path: Path, expected: dict[str, pl.DataType]) -> pl.DataFrame:
    if not path.exists():
        raise InputError(path, None, "file not found")
    try:
        df = pl.read_csv(path, schema_overrides=expected, infer_schema_length=0)
    except pl.exceptions.PolarsError as exc:  # pragma: no cover - message passthrough
        raise InputError(path, None, "not a readable CSV", str(exc).splitlines()[0]) from None
    missing = [c for c in expected if c not in df.columns]
    if missing:
        raise InputError(path, 1, "missing column(s)", ", ".join(missing))
    return df


def _scaled(col: str, divisor: float) -> pl.Expr:
    """``col / divisor`` rounded to 9 decimals (polars may divide via the reciprocal: 70/100 -> 0.7000000000000001)."""
    return (pl.col(col).cast(pl.Float64) / divisor).round(9)


def _millicores_to_cores(col: str) -> pl.Expr:
    """'1500' -> 1.5 cores; 'unlimited' -> null."""
    return (
        pl.when(pl.col(col).str.to_lowercase() == "unlimited")
        .then(None)
        .otherwise((pl.col(col).str.strip_suffix("m").cast(pl.Float64) / 1000.0).round(9))
    )


def load_ffmpeg_sweep(path: str | Path | None = None) -> pl.DataFrame:
    """The ffmpeg CPU-limit sweep (seed 000) as a canonical runs table.

    ``experiment`` is ``ffmpeg-sweep`` (experiment 1, 1000m to unlimited) or
    ``ffmpeg-dead-zone-repeat`` (experiment 2, 4000m-8000m); one replicate each.
    """
    path = Path(path) if path else published_path("ffmpeg")
    df = _read(path, {c: pl.String for c in ("experiment", "cpu_limit_millicores", "ffmpeg_threads", "wall_seconds")})
    out = df.with_row_index("row").select(
        ("ffmpeg-" + pl.col("experiment").str.replace_all("_", "-")).alias("experiment"),
        pl.format("{}-{}", pl.col("experiment"), pl.col("row")).alias("run_id"),
        pl.lit("published").alias("backend"),
        pl.lit("ffmpeg").alias("workload"),
        _millicores_to_cores("cpu_limit_millicores").alias("cpu_limit_cores"),
        pl.lit(100_000).alias("cpu_period_us"),
        pl.col("ffmpeg_threads").alias("threads"),
        pl.lit(0.0).alias("contention"),
        pl.lit(0).alias("replicate"),
        pl.lit(dt.datetime(2026, 2, 6, tzinfo=dt.timezone.utc)).alias("started_at"),
        pl.col("wall_seconds").cast(pl.Float64),
        pl.lit("ok").alias("status"),
        pl.lit(False).alias("warmup"),
        pl.lit("i7-12700F (20 threads)").alias("node"),
    )
    return tables.conform(out, "runs")


def load_automaxprocs(path: str | Path | None = None) -> pl.DataFrame:
    """The GOMAXPROCS table of automaxprocs' README as a canonical runs table (one run per cell).

    Uber's internal load balancer under a 2-core quota at GOMAXPROCS 1, 2, 3, 4,
    8 and 24 (the runtime default then: the host's CPU count): throughput_rps,
    latency_p50_seconds, latency_p999_seconds (published layout, see
    :mod:`throttlelab.ingest.published.published_runs`).
    """
    from throttlelab.ingest.published.published_runs import read_published_runs

    return read_published_runs(Path(path) if path else published_path("automaxprocs"))


def load_contention(path: str | Path | None = None) -> pl.DataFrame:
    """Mean response time vs co-located stress CPU (seed 001, table 1).

    Columns: ``requests_per_30s``, ``load`` (requests/s), ``contention``
    (stress share of node CPU, 0-1), ``mean_latency_seconds``.
    """
    path = Path(path) if path else published_path("contention")
    df = _read(path, {c: pl.String for c in ("requests_per_30s", "stress_cpu_percent", "mean_response_ms")})
    return df.select(
        pl.col("requests_per_30s").cast(pl.Int64),
        _scaled("requests_per_30s", 30.0).alias("load"),
        _scaled("stress_cpu_percent", 100.0).alias("contention"),
        _scaled("mean_response_ms", 1000.0).alias("mean_latency_seconds"),
    )


def load_semaphore(path: str | Path | None = None) -> pl.DataFrame:
    """Per-stage k6 summaries with and without an embedding semaphore (seed 002).

    Columns: ``config`` (e.g. ``workers=8,semaphore=none``), ``max_workers``,
    ``semaphore`` (null = none), ``load`` (VUs), ``stage``, ``avg_seconds``,
    ``p95_seconds``, ``max_seconds``, ``failed_rate``.
    """
    path = Path(path) if path else published_path("semaphore")
    cols = ("max_workers", "embedding_semaphore", "vus", "stage", "avg_seconds", "p95_seconds", "max_seconds", "http_req_failed_rate")
    df = _read(path, {c: pl.String for c in cols})
    sem = pl.when(pl.col("embedding_semaphore") == "none").then(None).otherwise(pl.col("embedding_semaphore")).cast(pl.Int64)
    return df.select(
        pl.format("workers={},semaphore={}", "max_workers", "embedding_semaphore").alias("config"),
        pl.col("max_workers").cast(pl.Int64),
        sem.alias("semaphore"),
        pl.col("vus").cast(pl.Float64).alias("load"),
        pl.col("stage"),
        pl.col("avg_seconds").cast(pl.Float64),
        pl.col("p95_seconds").cast(pl.Float64),
        pl.col("max_seconds").cast(pl.Float64),
        pl.col("http_req_failed_rate").cast(pl.Float64).alias("failed_rate"),
    )


def load_go_active_time(path: str | Path | None = None) -> pl.DataFrame:
    """Go JSON endpoint: profiled CPU time / wall time per limit (seed 003).

    Columns: ``cpu_limit_cores``, ``limit_share`` (limit / 1 CPU, 0-1),
    ``active_over_wall`` (0-1).
    """
    path = Path(path) if path else published_path("go_active_time")
    cols = ("cpu_limit_millicores", "limit_share_of_one_cpu_percent", "profiled_over_wall_percent")
    df = _read(path, {c: pl.String for c in cols})
    return df.select(
        _scaled("cpu_limit_millicores", 1000.0).alias("cpu_limit_cores"),
        _scaled("limit_share_of_one_cpu_percent", 100.0).alias("limit_share"),
        _scaled("profiled_over_wall_percent", 100.0).alias("active_over_wall"),
    )


def load_mediamtx(path: str | Path | None = None) -> pl.DataFrame:
    """MediaMTX before/after profile at 64 streams (seed 004).

    Columns: ``variant`` (asis/tobe), ``streams``, ``cpu_cores`` (process CPU
    in cores: profile CPU seconds / window), ``cpu_percent`` (of one core),
    ``memory_bytes``, ``goroutines``, ``cpu_profile_seconds``, ``profile_window_seconds``.
    """
    path = Path(path) if path else published_path("mediamtx")
    cols = ("variant", "streams", "cpu_percent", "memory_mb", "goroutines", "cpu_profile_seconds", "profile_window_seconds")
    df = _read(path, {c: pl.String for c in cols})
    return df.select(
        pl.col("variant"),
        pl.col("streams").cast(pl.Int64),
        _scaled("cpu_percent", 100.0).alias("cpu_cores"),
        pl.col("cpu_percent").cast(pl.Float64),
        (pl.col("memory_mb").cast(pl.Float64) * 1024 * 1024).round().cast(pl.Int64).alias("memory_bytes"),
        pl.col("goroutines").cast(pl.Int64),
        pl.col("cpu_profile_seconds").cast(pl.Float64),
        pl.col("profile_window_seconds").cast(pl.Float64),
    )
