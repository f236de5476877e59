"""Counter segments: where cumulative counters restart (pod restart, new run, cgroup version change).

:func:`segments` is the numpy form used by the monitor-log block stage;
:func:`assign_segments` the polars form used on a samples table (Prometheus).
Intervals are never computed across a segment boundary.
"""

from __future__ import annotations

import numpy as np
import polars as pl

COUNTERS = ("usage_seconds", "nr_periods", "nr_throttled", "throttled_seconds", "nr_bursts", "burst_seconds")


def segments(counters: list[pl.Series], version: np.ndarray, run: np.ndarray) -> np.ndarray:
    """:func:`assign_segments` in numpy, for the block stage: the segment of each
    sample given its cumulative counters (nulls allowed), cgroup version (0:
    unknown) and run."""
    n = len(run)
    new = np.zeros(n, dtype=bool)
    if n < 2:
        return np.zeros(n, dtype=np.int64)
    pos = np.arange(n)

    def filled(x: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if valid.all():
            return x, valid
        idx = np.maximum.accumulate(np.where(valid, pos, -1))  # forward fill
        return x[np.maximum(idx, 0)], idx >= 0

    for s in counters:
        x, valid = filled(s.fill_null(0).to_numpy(), s.is_not_null().to_numpy())
        new[1:] |= (x[1:] < x[:-1]) & valid[1:] & valid[:-1]  # the counter went backwards
    v, valid = filled(version, version > 0)
    new[1:] |= (v[1:] != v[:-1]) & valid[1:] & valid[:-1]
    new[1:] |= run[1:] != run[:-1]
    return np.cumsum(new, dtype=np.int64)


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
