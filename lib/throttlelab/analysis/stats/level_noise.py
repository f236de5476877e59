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

Each level's fitted noise is known only as well as the fit: ``level_df`` gives
its degrees of freedom, ``1 / (x_k' (X'WX)^-1 x_k)`` (the variance of a
chi-square's log is ``2 / df``, that of the fitted log variance
``2 x_k' (X'WX)^-1 x_k``): the pooled degrees of freedom in the middle of the
levels, fewer at the ends, where the trend is least sure.  ``trend`` is the
fitted noise before the pooled floor, for callers that guard against a wrong
trend otherwise (:mod:`~throttlelab.analysis.threads.thread_noise`).
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
    trend
        The fitted noise per level before the pooled floor (``sigma`` when pooled).
    level_df
        Degrees of freedom of each level's fitted noise (the precision of the fit at that level; ``df`` when pooled).
    """

    sigma: np.ndarray
    df: np.ndarray
    slope: float
    pooled: bool
    trend: np.ndarray | None = None
    level_df: np.ndarray | None = None
    log_var_cov: np.ndarray | None = None  # covariance of the fitted (a, b) of log sigma^2 (trend only)
    positions: np.ndarray | None = None  # each level's position in the fit (clipped to the replicated range)
    centre: float = 0.5  # the weighted mean position (where the pooled noise sits on the trend)

    def __post_init__(self):
        if self.trend is None:
            object.__setattr__(self, "trend", self.sigma)
        if self.level_df is None:
            object.__setattr__(self, "level_df", self.df)

    def variance_draws(self, rng: np.random.Generator, n_sim: int) -> np.ndarray:
        """Simulated ``sigma*^2 / sigma^2`` per level (``n_sim x levels``): how far a refit could land.

        Pooled: one chi-square draw (``df``) shared by every level.  Trend: each level's marginal is a chi-square
        with its ``level_df``, and the levels move together as the fitted line does (a Gaussian copula of the
        fitted ``(a, b)``); levels floored at the pooled noise take the pooled noise's chi-square at the same
        draw of the line's centre.
        """
        from scipy import stats

        n = len(self.sigma)
        df_pooled = float(np.max(self.df)) + (0.0 if self.pooled else 1.0)
        if self.pooled or self.log_var_cov is None:
            d = float(self.df[0]) if np.isfinite(self.df[0]) else np.inf
            if not np.isfinite(d):
                return np.ones((n_sim, n))
            return np.repeat((rng.chisquare(d, n_sim) / d)[:, None], n, axis=1)
        ab = rng.multivariate_normal(np.zeros(2), self.log_var_cov, n_sim)
        xs = np.column_stack([np.ones(n), self.positions])
        sd = np.sqrt(np.einsum("ij,jk,ik->i", xs, self.log_var_cov, xs))
        u = stats.norm.cdf((ab @ xs.T) / sd[None, :])
        out = stats.chi2.ppf(u, self.level_df[None, :]) / self.level_df[None, :]
        floored = self.sigma > self.trend * (1 + 1e-12)
        if floored.any():
            xc = np.array([1.0, self.centre])
            uc = stats.norm.cdf(ab @ xc / math.sqrt(float(xc @ self.log_var_cov @ xc)))
            out[:, floored] = (stats.chi2.ppf(uc, df_pooled) / df_pooled)[:, None]
        return np.maximum(out, 1e-12)


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
    trend = sigma * scale
    sigma = np.maximum(trend, pooled)  # the trend only ever raises a level's noise above the pooled one
    # Precision of the fitted log variance at each level: Fisher information of the gamma GLM (shape w/2 per residual).
    xs = np.column_stack([np.ones(k.size), x])
    info = xs.T @ (w[:, None] * xs)
    xq = np.column_stack([np.ones(n_levels), xc])
    cov = np.linalg.inv(info)
    level_df = np.minimum(1.0 / np.einsum("ij,jk,ik->i", xq, cov, xq), df_total - 1)
    return LevelNoise(sigma, np.full(n_levels, df_total - 1), float(b / 2), False, trend, level_df, 2 * cov, xc,
                      float(np.sum(w * x) / np.sum(w)))
