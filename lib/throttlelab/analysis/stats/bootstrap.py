"""Seeded bootstrap shared by the fits: refits on resampled data, residual draws and percentile intervals.

Every resampling takes an explicit ``seed`` so a notebook run twice gives the
same intervals.  :func:`bootstrap_refits` is the one loop: it draws a replicate
of the data, refits, and keeps a row per replicate (NaN where the refit
failed).  What a replicate is varies by fit: :func:`residual_draw` (fitted
values plus resampled residuals: the scaling fits and the response curves of
summary points) or a caller's own draw (the response curves of measured
requests resample the requests of each level).
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


def bootstrap_refits(
    refit: Callable[[np.ndarray], np.ndarray | None],
    draw: Callable[[np.random.Generator], np.ndarray],
    *,
    n_boot: int,
    seed: int,
    width: int,
) -> np.ndarray:
    """Refit on ``n_boot`` replicates ``draw(rng)`` of one seeded generator; rows of ``refit``'s ``width`` numbers.

    A row is NaN where ``refit`` returned ``None`` (the refit failed).

    Examples
    --------
    >>> y = np.array([1.0, 2.0, 3.0, 4.0])
    >>> rows = bootstrap_refits(lambda yy: np.array([yy.mean()]), lambda rng: y[rng.integers(0, 4, 4)],
    ...                         n_boot=3, seed=0, width=1)
    >>> rows.shape, bool(np.all((rows >= 1) & (rows <= 4)))
    ((3, 1), True)
    """
    rng = np.random.default_rng(seed)
    out = np.full((n_boot, width), np.nan)
    for b in range(n_boot):
        row = refit(draw(rng))
        if row is not None:
            out[b] = row
    return out


def residual_draw(fitted: np.ndarray, residuals: np.ndarray,
                  n_params: int) -> Callable[[np.random.Generator], np.ndarray]:
    """Replicates ``fitted + resampled residuals``, the residuals centred and rescaled by ``sqrt(n / (n - p))``.

    The rescaling is the usual leverage-free correction: residuals of a fit with
    ``p`` parameters are smaller than the errors, so the bootstrap noise would be
    too small without it.
    """
    n = len(residuals)
    scale = np.sqrt(n / max(n - n_params, 1))
    r = (residuals - residuals.mean()) * scale
    return lambda rng: fitted + r[rng.integers(0, n, n)]


def residual_bootstrap(
    refit: Callable[[np.ndarray], np.ndarray | None],
    fitted: np.ndarray,
    residuals: np.ndarray,
    *,
    n_boot: int,
    seed: int,
    n_params: int,
) -> np.ndarray:
    """Refit on ``fitted + resampled residuals`` (:func:`residual_draw`); rows of parameters (NaN where a refit
    failed)."""
    return bootstrap_refits(refit, residual_draw(fitted, residuals, n_params), n_boot=n_boot, seed=seed,
                            width=n_params)
