"""Pods, containers and kubectl top values per block, for the monitor-log block stage.

:func:`pods_and_top` gives each kept block its pod (from the log header, else
kubectl top), container (kubectl top's, filled within a run) and kubectl top
CPU and memory, each column built once (a literal when constant).
"""

from __future__ import annotations

import numpy as np
import polars as pl

TOP_DTYPES = {"pod": pl.String, "container": pl.String, "cpu": pl.Float64, "mem": pl.Int64}


def pods_and_top(pod_names: pl.Series, pod_pos: np.ndarray, rows: pl.DataFrame | None, row: np.ndarray,
                  run: np.ndarray) -> tuple[pl.Series, pl.Series, pl.Series, pl.Series]:
    """Per block: the pod (from the log header before the block, else from kubectl
    top), the container (kubectl top's, filled forward then backward within a
    run), and kubectl top's CPU and memory; each column built once."""
    n = len(row)
    if rows is None:
        rows = pl.DataFrame(schema=TOP_DTYPES)
        row = np.full(n, -1, dtype=np.int64)
    names = pl.concat([pod_names.cast(pl.String), rows["pod"]])
    if n and pod_pos[0] >= 0 and (pod_pos == pod_pos[0]).all():  # one log header for all: no arrays
        pod = pl.lit(names[int(pod_pos[0])], dtype=pl.String)
    else:
        pod = _gather(names, np.where(pod_pos >= 0, pod_pos, np.where(row >= 0, len(pod_names) + row, -1)), constant=True)
    has_container = rows["container"].is_not_null().to_numpy()
    if has_container.all():
        c = row
    else:
        c = np.where((row >= 0) & has_container[np.maximum(row, 0)], row, -1)
    container = _gather(rows["container"], fill_within_runs(c, run), constant=True)
    cpu = _gather(rows["cpu"], row)
    mem = _gather(rows["mem"], row)
    return pod, container, cpu, mem


def _gather(s: pl.Series, idx: np.ndarray, constant: bool = False) -> pl.Series | pl.Expr:
    """``s[idx]``, null where ``idx`` is -1; with ``constant``, a literal when
    all of ``idx`` are the same (polars then keeps one value, not a column)."""
    if constant and (len(idx) == 0 or (idx == idx[0]).all()):
        return pl.lit(s[int(idx[0])] if len(idx) and idx[0] >= 0 else None, dtype=s.dtype)
    if len(s) == 0:
        return pl.Series(s.name, [None] * len(idx), dtype=s.dtype)
    missing = idx < 0
    any_missing = bool(missing.any())
    safe = np.where(missing, 0, idx) if any_missing else idx
    if s.dtype.is_numeric():  # numpy memory, which polars takes without a copy
        out = pl.Series(s.name, s.fill_null(0).to_numpy()[safe], dtype=s.dtype)
    else:
        out = s.gather(safe)
    return out.scatter(np.flatnonzero(missing), None) if any_missing else out


def fill_within_runs(code: np.ndarray, run: np.ndarray) -> np.ndarray:
    """``code`` (-1: missing) filled forward, then backward, within each run
    (runs are contiguous): polars' ``forward_fill().backward_fill().over(run)``."""
    n = len(code)
    if n == 0 or (code >= 0).all() or (code < 0).all():
        return code
    pos = np.arange(n)
    first = np.r_[True, run[1:] != run[:-1]]
    run_start = np.maximum.accumulate(np.where(first, pos, 0))
    last = np.r_[run[1:] != run[:-1], True]
    run_end = np.minimum.accumulate(np.where(last, pos, n)[::-1])[::-1]
    fwd = np.maximum.accumulate(np.where(code >= 0, pos, -1))
    fwd = np.where(fwd >= run_start, fwd, -1)
    bwd = np.minimum.accumulate(np.where(code >= 0, pos, n)[::-1])[::-1]
    bwd = np.where(bwd <= run_end, bwd, -1)
    src = np.where(fwd >= 0, fwd, bwd)
    return np.where(src >= 0, code[np.maximum(src, 0)], -1)
