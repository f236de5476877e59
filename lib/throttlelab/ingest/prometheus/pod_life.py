"""A container's rate series laid on the window's steps over its pod's life, and its 5-minute throttled ratios."""

from __future__ import annotations

import numpy as np


def pod_life(points: dict, grid: np.ndarray, st: float) -> tuple[np.ndarray, dict, np.ndarray | None]:
    """One container's counters (``name -> (times, rates)``) on the window's ``grid`` of steps ``st``, kept only over
    its pod's life (from its first to its last finite rate; a Job pod lives minutes of a long window), and its
    5-minute throttled ratios (:func:`ratios_5m` over the window's whole 5-minute blocks): ``(grid, arrays, ratios)``.
    Only the blocks around its points are laid out, which gives what laying out the whole window gives.

    >>> g = 60.0 * np.arange(1, 21)
    >>> t, a, r = pod_life({"usage": (g[6:9], np.array([0.1, 0.2, np.nan])), "periods": (g[5:9], np.full(4, 10.0)),
    ...                      "throttled_periods": (g[5:9], np.array([0.0, 5.0, 10.0, 5.0]))}, g, 60.0)
    >>> t.tolist(), a["usage"].tolist(), r.tolist()
    ([360.0, 420.0, 480.0, 540.0], [nan, 0.1, 0.2, nan], [0.5])
    """
    n = len(grid)
    k = int(round(300 / st))
    idx = {name: np.clip(np.rint((t - grid[0]) / st).astype(np.int64), 0, n - 1) for name, (t, _) in points.items()}
    placed = [i for i in idx.values() if len(i)]
    finite = [i[np.isfinite(points[name][1])] for name, i in idx.items()]
    finite = [i for i in finite if len(i)]
    if not finite:
        return grid[:0].copy(), {name: np.empty(0) for name in points}, None
    whole = n // k * k  # the 5-minute blocks of the window
    a0 = min(int(i.min()) for i in placed) // k * k
    a1 = max(int(i.max()) for i in placed) + 1
    a1 = max(a1, min(whole, -(-a1 // k) * k))
    arrays = {}
    for name, (_, v) in points.items():
        arrays[name] = np.full(a1 - a0, np.nan)
        arrays[name][idx[name] - a0] = v
    r5 = ratios_5m({name: a[:max(0, min(a1, whole) - a0)] for name, a in arrays.items()}, st)
    lo = min(int(i.min()) for i in finite)
    hi = max(int(i.max()) for i in finite)
    return (grid[lo:hi + 1].copy(), {name: a[lo - a0:hi - a0 + 1].copy() for name, a in arrays.items()}, r5)


def ratios_5m(arrays: dict[str, np.ndarray], step: float) -> np.ndarray | None:
    """The throttled-period ratio of each 5-minute window with periods, from steps that divide 5 minutes
    (``None`` without CFS counters)."""
    k = int(round(300 / step))
    per, thr = arrays["periods"], arrays["throttled_periods"]
    n = len(per) // k * k
    if n == 0 or not np.isfinite(per).any():
        return None
    p = np.nansum(per[:n].reshape(-1, k), 1)
    t = np.nansum(thr[:n].reshape(-1, k), 1)
    ok = p > 0
    return t[ok] / p[ok]


def quantile_95(values: np.ndarray) -> float:
    """``np.quantile(values, 0.95)`` (linear, the same arithmetic) without its per-call overhead: one per container.

    >>> v = np.array([0.3, 0.0, 0.1, 0.2]); quantile_95(v) == float(np.quantile(v, 0.95))
    True
    """
    v = np.sort(values)
    if np.isnan(v[-1]):
        return float("nan")
    at = 0.95 * (len(v) - 1)
    lo = int(np.floor(at))
    hi = min(lo + 1, len(v) - 1)
    t = at - lo
    a, b = v[lo], v[hi]
    d = b - a
    return float(b - d * (1 - t) if t >= 0.5 else a + d * t)
