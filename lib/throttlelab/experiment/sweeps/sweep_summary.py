"""Descriptive views of a sweep's runs: per-point medians and one run's monitor intervals.

Only what a notebook shows right after a sweep; statistics with intervals and
tests live in :mod:`throttlelab.analysis`.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from throttlelab import tables
from throttlelab.experiment.sweeps.run_store import RunStore


def sweep_summary(runs: pl.DataFrame, *, include_warmup: bool = False) -> pl.DataFrame:
    """One row per (contention, limit, threads): runs, ok runs, medians.

    Columns: ``contention``, ``cpu_limit_cores`` (null = unlimited), ``limit``
    (text), ``threads``, ``runs``, ``ok``, ``median_wall_seconds``,
    ``median_cpu_seconds``, ``median_effective_cores`` (CPU / wall),
    ``throttled_ratio`` (pooled nr_throttled / nr_periods) and
    ``median_throttled_seconds``; for a service sweep also the median of each
    service metric the runs recorded (``median_throughput_rps``,
    ``median_latency_p99_seconds``, ...).  Failed runs count in ``runs`` only.
    """
    c = pl.col
    df = runs if include_warmup else runs.filter(~c("warmup").fill_null(False))
    ok = c("status") == "ok"
    service = [n for n in tables.RESPONSE_METRICS if n not in ("wall_seconds", "cpu_seconds")
               and n in df.columns and df[n].null_count() < df.height]
    out = (
        df.group_by("contention", "cpu_limit_cores", "threads")
        .agg(
            runs=pl.len(),
            ok=ok.sum(),
            median_wall_seconds=c("wall_seconds").filter(ok).median(),
            median_cpu_seconds=c("cpu_seconds").filter(ok).median(),
            median_effective_cores=(c("cpu_seconds") / c("wall_seconds")).filter(ok).median(),
            throttled_ratio=c("nr_throttled").filter(ok).sum() / c("nr_periods").filter(ok).sum(),
            median_throttled_seconds=c("throttled_seconds").filter(ok).median(),
            *[c(n).filter(ok).median().alias(f"median_{n}") for n in service],
        )
        .with_columns(
            limit=pl.when(c("cpu_limit_cores").is_null()).then(pl.lit("unlimited"))
            .otherwise(c("cpu_limit_cores").round(3).cast(pl.String)),
            throttled_ratio=pl.when(c("throttled_ratio").is_nan()).then(None).otherwise(c("throttled_ratio")),
        )
        .sort("contention", "cpu_limit_cores", "threads", nulls_last=True)
    )
    return out.select("contention", "cpu_limit_cores", "limit", "threads", "runs", "ok", "median_wall_seconds",
                      "median_cpu_seconds", "median_effective_cores", "throttled_ratio", "median_throttled_seconds",
                      *[f"median_{n}" for n in service])


def run_intervals(store: RunStore | str | Path, run_id: str) -> pl.DataFrame:
    """The canonical intervals of one run's monitor log (with ``seconds_since_start``)."""
    from throttlelab.ingest.monitor import read_monitor_log

    store = store if isinstance(store, RunStore) else RunStore(store)
    res = read_monitor_log(store.monitor_dir / f"{run_id}.log")
    iv = res.intervals()
    if iv.height == 0:
        return iv.with_columns(pl.lit(None, pl.Float64).alias("seconds_since_start"))
    t0 = iv["start"].min()
    return iv.with_columns(((pl.col("end") - t0).dt.total_microseconds() / 1e6).alias("seconds_since_start"))


def pick_example_run(runs: pl.DataFrame) -> str | None:
    """A representative run to show: the ok, non-warm-up run with the most throttled time."""
    ok = runs.filter((pl.col("status") == "ok") & ~pl.col("warmup").fill_null(False))
    if ok.height == 0:
        return None
    return ok.sort("throttled_seconds", "run_id", descending=[True, False], nulls_last=True)["run_id"][0]
