"""The counters of the samples: the cgroup's values in their units, and counter segments per series.

:func:`cgroup_values` converts a block's cpu.stat (v1 or v2), cpu.max and
cpuacct.usage columns to the samples' columns through the catalogue.  Counter
segments are numbered per series (run, pod, container): a new one starts at a
new run, a change of cgroup version, or any counter going backwards (a restart).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from throttlelab.core.cpu_stat import STAT_KEYS, V1_USAGE_FILE
from throttlelab.core.metrics import CPU_COUNTERS, CpuCounter
from throttlelab.ingest.counter_segments import COUNTERS

#: The blocks' columns the cgroup's values are computed from (:func:`cgroup_values`).
VALUE_COLUMNS = ("version", *STAT_KEYS, "quota", "period", "acct")


def cgroup_values() -> dict[str, pl.Expr]:
    """The samples' columns of the cgroup (cpu.stat, cpu.max, cpuacct.usage), from a block's columns."""
    c = pl.col
    v = c("version")
    quota, period = c("quota"), c("period")

    def exact(col: str, scale: float) -> pl.Expr:
        # numpy true division: exact (polars multiplies by the reciprocal, which is not)
        return c(col).map_batches(lambda s: pl.Series(s.to_numpy() / scale, nan_to_null=True), return_dtype=pl.Float64)

    def value(k: CpuCounter) -> pl.Expr | str:
        """A counter in its unit, from the column of the block's cgroup version (v1's usage: ``acct``)."""
        if k.integer:
            return k.v2_key  # a count: the same key in both versions
        v1_key = "acct" if k.v1_key == V1_USAGE_FILE else k.v1_key
        out = pl.when(v == 2).then(exact(k.v2_key, k.v2_scale))
        return out.when(v == 1).then(exact(v1_key, k.v1_scale)) if v1_key else out

    return dict(
        cgroup_version="version",
        **{k.name: value(k) for k in CPU_COUNTERS},
        limit_cores=pl.when((quota >= 0) & (period > 0)).then(quota / period),  # column / column: exact
        period_us=period,
    )


def _starts() -> pl.Expr:
    """Whether a sample starts a counter segment, within its series: a counter goes back, or the cgroup version
    changes (each compared with the last sample that has one)."""
    c = pl.col
    version = c("cgroup_version").forward_fill()
    return pl.any_horizontal(*((c(k).forward_fill().diff() < 0).fill_null(False) for k in COUNTERS),
                             (version != version.shift(1)).fill_null(False))


def series_starts(samples: pl.DataFrame, sid: np.ndarray) -> np.ndarray:
    """:func:`_starts` of each sample within its series (``sid``, from :func:`series_ids`)."""
    if not len(sid) or sid.min() == sid.max():
        return samples.select(_starts()).to_series().to_numpy()
    return samples.with_columns(_sid=sid).select(_starts().over("_sid")).to_series().to_numpy()


def number_segments(samples: pl.DataFrame, starts: np.ndarray | None = None,
                    sid: np.ndarray | None = None) -> pl.DataFrame:
    """Add ``segment`` (and drop ``run``): counter segments per series (run, pod,
    container), numbered in order of first appearance.  ``starts`` (of
    :func:`series_starts`) and ``sid`` (of :func:`series_ids`): when the
    caller has them.

    A segment begins at the first sample of its series and at each sample
    that starts one; every sample belongs to the last beginning at or before
    it in its series, and since a segment's first sample is its beginning,
    numbering the beginnings in file order numbers the segments in order of
    first appearance."""
    sid = series_ids(samples) if sid is None else sid
    new = series_starts(samples, sid) if starts is None else starts
    return samples.with_columns(segment=pl.Series(segment_ids(sid, new), dtype=pl.Int64)).drop("run")


def segment_ids(sid: np.ndarray, new: np.ndarray) -> np.ndarray:
    """The segment of each sample (see :func:`number_segments`) from its series (``sid``) and whether it starts
    a segment (``new``).

    >>> segment_ids(np.array([5, 7, 5, 7, 5]), np.array([False, False, True, False, False])).tolist()
    [0, 1, 2, 1, 2]
    """
    if not len(sid) or sid.min() == sid.max():  # one series: no windows
        return np.cumsum(new, dtype=np.int64)
    begins = new | pl.Series(sid).is_first_distinct().to_numpy()
    ids = pl.DataFrame({"sid": sid, "b": begins}).with_row_index("i")
    last = ids.select(pl.when("b").then("i").forward_fill().over("sid")).to_series().to_numpy()
    del ids
    return (np.cumsum(begins, dtype=np.int64) - 1)[last]


def series_ids(samples: pl.DataFrame) -> np.ndarray:
    """An integer per sample, equal for samples of the same series (run, pod, container)."""
    c = pl.col
    if not samples.height:
        return np.zeros(0, dtype=np.int64)
    codes = samples.select(  # null -> 0, the others from 1
        run=c("run").cast(pl.Int64).fill_null(-1) + 1,
        pod=(c("pod").cast(pl.Categorical).to_physical().cast(pl.UInt32) + 1).fill_null(0),
        container=(c("container").cast(pl.Categorical).to_physical().cast(pl.UInt32) + 1).fill_null(0),
    )
    low, high = codes.min().row(0), codes.max().row(0)
    span_p, span_q = high[1] + 1, high[2] + 1
    if low[0] >= 0 and (high[0] + 1) * span_p * span_q < 2**62:
        return codes.select((c("run") * span_p + c("pod").cast(pl.Int64)) * span_q + c("container").cast(pl.Int64)
                            ).to_series().to_numpy()
    return samples.select(pl.struct("run", "pod", "container").rank("dense")).to_series().to_numpy().astype(np.int64)
