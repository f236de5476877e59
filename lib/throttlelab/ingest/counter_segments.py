"""Counter segments: where cumulative counters restart (pod restart, new run, cgroup version change).

:func:`assign_segments` numbers them on a samples table (Prometheus); the
monitor-log reader numbers them per pod and container
(:func:`.monitor.monitor_counters.number_segments`).
Intervals are never computed across a segment boundary.
"""

from __future__ import annotations

import polars as pl

COUNTERS = ("usage_seconds", "nr_periods", "nr_throttled", "throttled_seconds", "nr_bursts", "burst_seconds")


def assign_segments(samples: pl.DataFrame, *, by: str | None = "run") -> pl.DataFrame:
    """Number counter segments: a new one starts at a new run (``by`` column),
    a change of cgroup version, or any cumulative counter going backwards."""
    c = pl.col
    cols = [k for k in COUNTERS if k in samples.columns]
    backwards = pl.any_horizontal(*(c(k).forward_fill().diff() < 0 for k in cols)) if cols else pl.lit(False)
    version = c("cgroup_version").forward_fill() if "cgroup_version" in samples.columns else pl.lit(0)
    new = backwards.fill_null(False) | (version != version.shift(1)).fill_null(False)
    if by and by in samples.columns:
        new = new | (c(by) != c(by).shift(1)).fill_null(False)
    out = samples.with_columns(segment=new.cast(pl.Int64).cum_sum())
    return out.drop(by) if by and by in out.columns else out
