"""A run's CPU totals from its monitor samples (the canonical samples table).

The sampler prints a block just before the workload starts and one just after
it ends, so last-minus-first of each cumulative counter is what the run used
(per counter segment, summed, in case a counter was reset).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from throttlelab.core.metrics import CPU_COUNTERS

#: samples counter -> the runs-table column of its total (the catalogue's counters that runs have)
_COUNTERS = {c.name: c.run_column for c in CPU_COUNTERS if c.run_column}
_INTS = {c.name for c in CPU_COUNTERS if c.integer and c.run_column}


def summarise_samples(samples: pl.DataFrame) -> dict[str, Any]:
    """Runs-table measurement columns from a run's samples.

    Parameters
    ----------
    samples
        Rows of the canonical samples table for one container.

    Returns
    -------
    dict
        ``cpu_seconds``, ``user_seconds``, ``system_seconds``, ``nr_periods``,
        ``nr_throttled``, ``throttled_seconds``; ``None`` for a counter with
        fewer than two values.
    """
    cols = [c for c in _COUNTERS if c in samples.columns]
    out: dict[str, Any] = {v: None for v in _COUNTERS.values()}
    if samples.is_empty() or not cols:
        return out
    seg = pl.col("segment").fill_null(0) if "segment" in samples.columns else pl.lit(0)
    per_segment = (
        samples.sort("timestamp")
        .with_columns(seg.alias("_seg"))
        .group_by("_seg", maintain_order=True)
        .agg(*[(pl.col(c).drop_nulls().last() - pl.col(c).drop_nulls().first()).alias(c) for c in cols],
             *[pl.col(c).drop_nulls().len().alias(f"_n_{c}") for c in cols])
    )
    for c in cols:
        if per_segment[f"_n_{c}"].max() < 2:
            continue
        total = per_segment.filter(pl.col(f"_n_{c}") >= 2)[c].sum()
        out[_COUNTERS[c]] = int(total) if c in _INTS else float(total)
    return out


def read_samples(path: str | Path) -> pl.DataFrame:
    """The samples of a monitor log, read by the ingest parser."""
    from throttlelab.ingest.monitor import read_monitor_log

    result = read_monitor_log(path)
    frame = getattr(result, "samples", result)
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    return frame
