"""Seeded bootstrap helpers shared by the fits.

Every resampling takes an explicit ``seed`` so a notebook run twice gives the
same intervals.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from throttlelab.results import ConfidenceInterval


def percentile_interval(samples: np.ndarray, level: float = 0.95) -> ConfidenceInterval:
    """Percentile interval of bootstrap ``samples`` (NaNs dropped)."""
    s = np.asarray(samples, float)
    s = s[np.isfinite(s)]
    if s.size == 0:
        return ConfidenceInterval(float("nan"), float("nan"))
    a = (1 - level) / 2
    lo, hi = np.quantile(s, [a, 1 - a])
    return ConfidenceInterval(float(lo), float(hi))


def residual_bootstrap(
    refit: Callable[[np.ndarray], np.ndarray | None],
    fitted: np.ndarray,
    residuals: np.ndarray,
    *,
    n_boot: int,
    seed: int,
    n_params: int,
) -> np.ndarray:
    """Refit on ``fitted + resampled residuals``; rows of parameters (NaN where a refit failed).

    Residuals are rescaled by ``sqrt(n / (n - p))`` (the usual leverage-free
    correction) before resampling so the bootstrap noise is not too small.
    """
    rng = np.random.default_rng(seed)
    n = len(residuals)
    scale = np.sqrt(n / max(n - n_params, 1))
    r = (residuals - residuals.mean()) * scale
    out = np.full((n_boot, n_params), np.nan)
    for b in range(n_boot):
        y = fitted + r[rng.integers(0, n, n)]
        params = refit(y)
        if params is not None:
            out[b] = params
    return out
