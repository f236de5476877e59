"""Run-to-run noise per level: a log-linear trend of the noise across the levels, fitted to the residuals.

Noise differs between CPU limits (more cores, more scheduling noise), so one
pooled sigma makes tests too liberal at the noisy limits; but three runs per
limit give each limit's own sigma only two degrees of freedom, and tests on
those alone have little power (and one or two runs give nothing).  The model
used here sits between: ``log sigma_k = a + b * x_k`` with ``x_k`` the level's
position scaled to [0, 1], fitted by maximum likelihood to the squared
residuals (``r_i^2 / (1 - h_i) ~ sigma_k^2 chi^2_1``, ``h_i`` the leverage: a
gamma GLM with log link).  Equal noise gives ``b`` near 0 (the pooled sigma,
one degree of freedom spent on ``b``); noise growing with the limit is
followed.  The trend is not extrapolated: levels beyond the replicated range
get the noise of the nearest replicated level.  The trend is used when a
likelihood-ratio test against one pooled sigma supports it (p < ``TREND_P``),
and it only raises a level's noise above the pooled sigma, never lowers it (a
spurious trend must not make any test liberal).  With fewer than two
replicated levels or fewer than three residual degrees of freedom the noise is
pooled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

#: The trend is used when its likelihood-ratio test against one pooled sigma has p below this.
TREND_P = 0.25
#: Noise (sd of log values) at or below which replicates count as identical: rounding, not run-to-run noise.
ZERO_SIGMA = 1e-9
#: What zero run-to-run noise means, for the results' method text and the notebooks.
ZERO_NOTE = ("run-to-run noise is zero: replicated runs gave identical values (a deterministic metric, e.g. the CPU "
             "seconds of fixed work), so differences are exact; no test is needed or possible, and no interval is given")


@dataclass(frozen=True)
class LevelNoise:
    """Noise per level.

    Attributes
    ----------
    sigma
        sd of log run summaries per level (from the trend, or pooled).
    df
        Degrees of freedom behind each level's sigma (residual df minus the trend's slope).
    slope
        Change of log sigma from the first to the last level (0 when pooled).
    pooled
        True when one sigma serves every level.
    """

    sigma: np.ndarray
    df: np.ndarray
    slope: float
    pooled: bool


def noise_trend(resid: np.ndarray, leverage: np.ndarray, level: np.ndarray, n_levels: int, df_total: float) -> LevelNoise:
    """Fit ``log sigma_k = a + b x_k`` to residuals (see the module docstring).

    Parameters
    ----------
    resid, leverage, level
        Per run: residual, leverage ``h_i`` and level index (0..n_levels-1).
    df_total
        Residual degrees of freedom of the mean model.
    """
    use = leverage < 1 - 1e-9
    if df_total <= 0 or not use.any():
        return LevelNoise(np.full(n_levels, np.nan), np.zeros(n_levels), 0.0, True)
    u = resid[use] ** 2 / (1 - leverage[use])
    k = level[use]
    x_all = np.arange(n_levels) / max(n_levels - 1, 1)
    x = x_all[k]
    pooled = math.sqrt(float(np.sum(resid**2)) / df_total)
    rep = np.unique(k)
    if len(rep) < 2 or df_total < 3 or np.ptp(x) == 0 or pooled <= ZERO_SIGMA:  # identical replicates: no trend
        return LevelNoise(np.full(n_levels, pooled), np.full(n_levels, df_total), 0.0, True)
    w = (1 - leverage[use])  # each residual carries (1 - h) of a degree of freedom

    def nll(p):
        ls2 = p[0] + p[1] * x
        return float(np.sum(w * (ls2 + u / np.exp(ls2))))

    res = optimize.minimize(nll, [2 * math.log(max(pooled, 1e-12)), 0.0], method="Nelder-Mead",
                            options={"xatol": 1e-8, "fatol": 1e-10, "maxiter": 4000})
    a, b = res.x
    a0 = math.log(float(np.sum(w * u) / np.sum(w)))
    lr = nll([a0, 0.0]) - res.fun  # likelihood ratio (chi-square, 1 df) of "no trend"
    if stats.chi2.sf(max(lr, 0.0), 1) >= TREND_P:
        return LevelNoise(np.full(n_levels, pooled), np.full(n_levels, df_total), 0.0, True)
    lo, hi = x_all[rep.min()], x_all[rep.max()]
    xc = np.clip(x_all, lo, hi)
    sigma = np.exp((a + b * xc) / 2)
    # Rescale so that the trend reproduces the pooled residual variance (ML variance is biased low).
    scale = math.sqrt(float(np.sum(resid**2 / np.exp(a + b * x_all[level]))) / df_total)
    sigma = np.maximum(sigma * scale, pooled)  # the trend only ever raises a level's noise above the pooled one
    return LevelNoise(sigma, np.full(n_levels, df_total - 1), float(b / 2), False)
