"""Rates between consecutive samples: the canonical *intervals* table.

For each pair of consecutive samples of the same ``source`` and ``segment``
(so never across a counter reset, a new run or a cgroup version change):

* ``throttled_ratio`` = Δnr_throttled / Δnr_periods (null when no period elapsed);
* ``throttled_seconds_per_second`` = Δthrottled_seconds / Δt;
* ``effective_cores`` = Δusage_seconds / Δt;
* ``limit_cores`` and the ``kubectl top`` values at the interval end;
* ``usage_share_of_limit`` = effective_cores / limit_cores (null when unlimited).

A counter missing at either end leaves that rate null for the interval.
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
    s = samples.with_row_index("_order").sort([*keys, "timestamp", "_order"], nulls_last=True)

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
        throttled_ratio=pl.when(d_periods > 0).then(d("nr_throttled") / d_periods),
        throttled_seconds_per_second=pl.when(dt > 0).then(d("throttled_seconds") / dt),
        effective_cores=pl.when(dt > 0).then(d("usage_seconds") / dt),
        limit_cores="limit_cores",
        top_cpu_cores="top_cpu_cores",
        top_memory_bytes="top_memory_bytes",
    ).filter(c("start").is_not_null())
    out = out.with_columns(
        usage_share_of_limit=pl.when(c("limit_cores") > 0).then(c("effective_cores") / c("limit_cores"))
    )
    return tables.conform(out, "intervals")
