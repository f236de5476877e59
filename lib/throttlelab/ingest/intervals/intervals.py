"""Rates between consecutive samples: the canonical *intervals* table.

For each pair of consecutive samples of the same ``source`` and ``segment``
(so never across a counter reset, a new run or a cgroup version change):

* ``nr_periods_delta``, ``nr_throttled_delta``: the counter deltas;
* ``throttled_ratio`` = Δnr_throttled / Δnr_periods (null when no period elapsed);
* ``throttled_seconds_per_second`` = Δthrottled_seconds / Δt;
* ``effective_cores`` = Δusage_seconds / Δt;
* ``limit_cores`` and the ``kubectl top`` values at the interval end;
* ``usage_share_of_limit`` = effective_cores / limit_cores (null when unlimited).

A counter missing at either end leaves that rate null for the interval.  Samples
without a time (bare ``cat cpu.stat`` snapshots) give intervals with the counter
deltas and ``throttled_ratio`` but no times or per-second rates.
"""

from __future__ import annotations

import polars as pl

from throttlelab import tables


def intervals(samples: pl.DataFrame) -> pl.DataFrame:
    """The intervals table of a samples table (see the module docstring)."""
    if samples.height == 0:
        return tables.empty("intervals")
    c = pl.col
    keys = ["source", "segment"]
    s = samples.with_row_index("_order").sort([*keys, "timestamp", "_order"], nulls_last=True).with_columns(
        _first=pl.int_range(pl.len()).over(keys) == 0)

    def d(name: str) -> pl.Expr:
        return (c(name) - c(name).shift(1)).over(keys)

    dt = ((c("timestamp") - c("timestamp").shift(1)).over(keys)).dt.total_microseconds() / 1e6
    d_periods = d("nr_periods")
    out = s.select(
        "source",
        "pod",
        "container",
        "segment",
        start=c("timestamp").shift(1).over(keys),
        end=c("timestamp"),
        seconds=dt,
        nr_periods_delta=d_periods,
        nr_throttled_delta=d("nr_throttled"),
        throttled_ratio=pl.when(d_periods > 0).then(d("nr_throttled") / d_periods),
        throttled_seconds_per_second=pl.when(dt > 0).then(d("throttled_seconds") / dt),
        effective_cores=pl.when(dt > 0).then(d("usage_seconds") / dt),
        limit_cores="limit_cores",
        top_cpu_cores="top_cpu_cores",
        top_memory_bytes="top_memory_bytes",
        _first="_first",
    ).filter(~c("_first")).drop("_first")
    out = out.with_columns(
        usage_share_of_limit=pl.when(c("limit_cores") > 0).then(c("effective_cores") / c("limit_cores"))
    )
    return tables.conform(out, "intervals")


def thin_samples(samples: pl.DataFrame, max_points: int = 2000) -> pl.DataFrame:
    """Keep at most about ``max_points`` samples per source, evenly in time.

    Counters are cumulative, so the intervals between the kept samples are
    exact over their longer spans (a thinned throttled ratio is Δnr_throttled /
    Δnr_periods over the whole bucket, not a mean of ratios).  The first sample
    of every segment is kept so no segment loses its start.
    """
    if samples.height <= max_points:
        return samples
    c = pl.col
    us = c("timestamp").dt.epoch("us")
    span = (us.max() - us.min()).over("source")
    bucket = ((us - us.min().over("source")) * max_points // (span + 1)).alias("_bucket")
    keys = ["source", "segment", "_bucket"]
    s = samples.with_columns(bucket)
    keep = pl.struct(keys).is_last_distinct() | pl.struct("source", "segment").is_first_distinct()
    return s.filter(keep).drop("_bucket")


def summary_by_limit(intervals: pl.DataFrame) -> pl.DataFrame:
    """Per source and CPU limit: time covered, Σ periods, throttled ratio
    Σ Δnr_throttled / Σ Δnr_periods, time-weighted mean effective cores and
    throttled seconds per second, and the largest memory seen."""
    c = pl.col
    return (
        intervals.with_columns(limit=c("limit_cores").fill_null(-1.0))
        .group_by("source", "limit", maintain_order=True)
        .agg(
            c("seconds").sum().alias("seconds"),
            c("nr_periods_delta").sum().alias("nr_periods"),
            c("nr_throttled_delta").sum().alias("nr_throttled"),
            (c("nr_throttled_delta").sum() / c("nr_periods_delta").sum()).alias("throttled_ratio"),
            ((c("effective_cores") * c("seconds")).sum() / c("seconds").filter(c("effective_cores").is_not_null()).sum())
            .alias("effective_cores"),
            ((c("throttled_seconds_per_second") * c("seconds")).sum() / c("seconds").sum()).alias("throttled_seconds_per_second"),
            c("top_memory_bytes").max().alias("max_memory_bytes"),
        )
        .with_columns(limit_cores=pl.when(c("limit") >= 0).then(c("limit")))
        .drop("limit")
        .select("source", "limit_cores", "seconds", "nr_periods", "nr_throttled", "throttled_ratio", "effective_cores",
                "throttled_seconds_per_second", "max_memory_bytes")
    )
