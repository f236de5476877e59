"""Response-time curve models against a noisy neighbour's share, and their least-squares fit.

Response time ``R`` against the neighbour's share ``x`` of the node (available
CPU ``cores * (1 - x)``):

``hyperbolic``
    ``R = a + b / (c - x)``: a floor plus a term that blows up at ``x = c``.
``mm1``
    M/M/1-like, ``R = S / (1 - rho)`` with ``rho = lambda * S / (C * (1 - x))``.

:data:`MODELS` maps each name to its function and parameter names;
:func:`fit_params` fits one (bounded least squares from a few starts) and
:func:`knee_doubling_pole` gives the knee, doubling share and pole of a fitted
curve.  :mod:`.response_curves` adds the bootstrap intervals and the tables.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import optimize


def _hyperbolic(x, lam, a, b, c):
    d = c - x
    return np.where(d > 1e-6, a + b / np.maximum(d, 1e-6), 1e6)


def _mm1(x, lam, s, cap):
    rho = lam * s / (cap * np.maximum(1 - x, 1e-9))
    return np.where(rho < 0.999, s / np.maximum(1 - rho, 1e-3), 1e6)


MODELS = {
    "hyperbolic": (_hyperbolic, ("a", "b", "c")),
    "mm1": (_mm1, ("service_seconds", "effective_cores")),
}


def fit_params(model: str, x, lam, y, p0=None) -> np.ndarray:
    """Least-squares parameters of ``model`` for points ``(x, lam, y)``; from ``p0``
    when given (bootstrap refits), else from a few starting guesses.  Raises
    ``RuntimeError`` when no start converges."""
    fn, names = MODELS[model]
    if p0 is not None:
        starts = [tuple(p0)]
        lower, upper = ((-np.inf, 0.0, float(np.max(x)) + 1e-4), (np.inf, np.inf, 10.0)) if model == "hyperbolic" \
            else ((1e-6, 1e-3), (np.inf, 1e3))
    elif model == "hyperbolic":
        y0 = float(np.min(y))
        starts = [(y0 * 0.5, y0 * 0.3, c0) for c0 in (float(np.max(x)) + d for d in (0.05, 0.2, 0.5))]
        lower, upper = (-np.inf, 0.0, float(np.max(x)) + 1e-4), (np.inf, np.inf, 10.0)
    else:
        starts = [(float(np.min(y)), cap) for cap in (1.0, 2.0, 4.0)]
        lower, upper = (1e-6, 1e-3), (np.inf, 1e3)
    best, best_rss = None, np.inf
    for p0 in starts:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = optimize.least_squares(lambda p: fn(x, lam, *p) - y, p0, bounds=(lower, upper), max_nfev=2000)
        except (ValueError, RuntimeError):
            continue
        rss = float(np.sum(res.fun ** 2))
        if res.success and rss < best_rss:
            best, best_rss = res.x, rss
    if best is None:
        raise RuntimeError(f"{model} fit did not converge")
    return best


def knee_doubling_pole(model: str, p: np.ndarray, lam: float, x_max: float) -> tuple[float, float, float]:
    """knee, doubling share, pole of the curve with parameters ``p`` (rate ``lam``)."""
    nan = float("nan")
    if model == "hyperbolic":
        a, b, c = p
        pole = float(c)
        span = (b / (c - x_max) - b / c) / x_max if x_max > 0 else nan  # average slope over [0, x_max]
        knee = float(np.clip(c - np.sqrt(b / span), 0.0, x_max)) if span > 0 else nan
        denom = a + 2 * b / c
        doubling = float(c - b / denom) if denom > 0 else nan
    else:
        s, cap = p
        rho0 = lam * s / cap
        pole = float(1 - rho0)
        doubling = float(1 - 2 * lam * s / (cap * (1 + rho0))) if lam > 0 else nan
        grid = np.linspace(0.0, x_max, 401)
        y = _mm1(grid, lam, s, cap)
        avg = (y[-1] - y[0]) / x_max if x_max > 0 else nan
        slope = np.gradient(y, grid)
        knee = float(grid[np.argmax(slope >= avg)]) if np.isfinite(avg) and avg > 0 and np.any(slope >= avg) else nan
    pole = pole if 0 < pole < 1 else nan
    doubling = doubling if 0 <= doubling < 1 and not (np.isfinite(pole) and doubling >= pole) else nan
    return knee, doubling, pole
