"""Is run time monotone (non-increasing) in the CPU limit? A test against the isotonic fit.

The isotonic (non-increasing) regression of the limit means
(``scipy.optimize.isotonic_regression``, weights = runs per limit) is
compared with the unconstrained means; the statistic is the weighted sum of
squared violations over ``sigma^2``.  Its null distribution is simulated at
the least favourable monotone curve (all limits equal), so the test keeps its
level whatever the true monotone curve is.  :func:`isotonic_decreasing_rows`
fits every simulated row at once.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import isotonic_regression


def monotone_p_value(mu: np.ndarray, C: np.ndarray, L: np.ndarray, sigma: float, sig_draws: np.ndarray,
                     rng: np.random.Generator) -> float:
    """p-value of "run time is non-increasing in the limit" (flat, least favourable null).

    Parameters
    ----------
    mu
        Estimated log-scale mean per limit, in limit order.
    C, L
        Unscaled covariance of ``mu`` and its Cholesky factor.
    sigma
        Estimated noise scale; ``sig_draws`` are its simulated values (one per draw).
    rng
        Generator for the ``len(sig_draws)`` null draws.
    """
    J, n_sim = len(mu), len(sig_draws)
    w = 1.0 / np.diag(C)
    iso = isotonic_regression(mu, weights=w, increasing=False).x
    stat_obs = float(np.sum(w * (mu - iso) ** 2) / sigma**2)
    flat = (L @ rng.standard_normal((J, n_sim))).T  # unit noise; sigma cancels in the statistic
    stat_null = np.sum(w * (flat - isotonic_decreasing_rows(flat, w)) ** 2, axis=1) / (sig_draws / sigma) ** 2
    return float((np.sum(stat_null >= stat_obs - 1e-12) + 1) / (n_sim + 1))


def isotonic_decreasing_rows(M: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted non-increasing isotonic regression of every row (min-max formula, vectorised).

    ``fit_j = min_{i<=j} max_{k>=j} avg_w(i..k)``; equal to
    ``scipy.optimize.isotonic_regression(row, weights=w, increasing=False)``.
    """
    B, J = M.shape
    cw = np.concatenate([[0.0], np.cumsum(w)])
    cs = np.concatenate([np.zeros((B, 1)), np.cumsum(M * w, axis=1)], axis=1)
    i, k = np.meshgrid(np.arange(J), np.arange(J), indexing="ij")
    valid = k >= i
    denom = np.where(valid, cw[k + 1] - cw[i], 1.0)
    avg = (cs[:, k + 1] - cs[:, i]) / denom  # (B, J, J): avg over i..k
    avg = np.where(valid[None], avg, np.nan)
    out = np.empty_like(M)
    for j in range(J):
        inner = np.nanmax(avg[:, : j + 1, j:], axis=2)  # max over k>=j, for each i<=j
        out[:, j] = inner.min(axis=1)
    return out
