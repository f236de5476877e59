"""Run-to-run noise per CPU limit for thread counts: the trend across limits, never below the limit's own cells.

Noise grows with the limit (more cores, more scheduling noise), so one pooled
sigma over a thread sweep understates it at large limits and overstates it at
small ones.  A limit's own replicated cells measure its noise but with few
degrees of freedom (12 with six cells of three runs), and a claim made over the
whole sweep needs a small per-limit level, where so few degrees of freedom cost
much power.  Each limit's noise is therefore the log-linear trend of the noise
across the limits (:func:`~throttlelab.analysis.stats.level_noise.noise_trend`: the
pooled noise when the runs do not support a trend), with the degrees of freedom
of the trend's fitted value at that limit (``level_df``: fewer at the ends of
the sweep, where the trend is least sure), and never below what the limit's own
cells measured (a guard against a trend of the wrong shape, e.g. a step).
Identical replicates (a deterministic metric such as the CPU seconds of fixed
work) give zero noise: differences are then exact, and no test is needed or
possible.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from throttlelab.analysis.stats import ZERO_NOTE, ZERO_SIGMA, noise_trend
from throttlelab.analysis.stats import NoiseModel

#: Fewest residual degrees of freedom of a limit's own cells for its own noise to guard the trend.
MIN_OWN_DF = 1


@dataclass(frozen=True)
class LimitNoise:
    """Run-to-run noise at one limit.

    Attributes
    ----------
    sigma, df
        sd of log run values and its degrees of freedom (NaN, 0 when unmeasured).
    source
        ``"own cells"`` (above the trend), ``"trend across limits"``, ``"pooled across limits"``, ``"zero"`` or
        ``"unmeasured"``.
    own_df
        Residual degrees of freedom of the limit's own replicated cells.
    """

    sigma: float
    df: float
    source: str
    own_df: float

    @property
    def zero(self) -> bool:
        """True when replicates were identical (a deterministic metric)."""
        return self.source == "zero"

    def model(self, replicated_cells: int) -> NoiseModel:
        """As the :class:`~throttlelab.analysis.stats.noise.NoiseModel` the tests and intervals take."""
        if self.source == "unmeasured":
            return NoiseModel(float("nan"), 0.0, "unmeasured", True, replicated_cells, "no replicated cell")
        return NoiseModel(self.sigma, self.df, self.source, False, replicated_cells, ZERO_NOTE if self.zero else "")


def noise_per_limit(limit: np.ndarray, cell: np.ndarray, log_y: np.ndarray, n_limits: int, *,
                    min_own_df: int = MIN_OWN_DF, pooled: bool = False) -> list[LimitNoise]:
    """Noise of each limit (index ``0..n_limits-1``) from runs with their limit index, cell id and log value.

    ``pooled=True`` gives every limit the pooled noise of all replicated cells (the earlier method).
    """
    limit = np.asarray(limit, int)
    cell = np.asarray(cell)
    log_y = np.asarray(log_y, float)
    _, inv, counts = np.unique(cell, return_inverse=True, return_counts=True)
    means = np.bincount(inv, weights=log_y) / counts
    resid = log_y - means[inv]
    leverage = 1.0 / counts[inv]
    df_total = float(log_y.size - counts.size)
    if df_total <= 0:
        return [LimitNoise(float("nan"), 0.0, "unmeasured", 0.0) for _ in range(n_limits)]
    own_ss = np.bincount(limit, weights=resid**2, minlength=n_limits)
    own_df = np.bincount(limit, weights=1 - leverage, minlength=n_limits)
    pooled_sigma = math.sqrt(float(np.sum(resid**2)) / df_total)
    if pooled_sigma <= ZERO_SIGMA:
        return [LimitNoise(0.0, df_total, "zero", float(d)) for d in own_df]
    if pooled:
        return [LimitNoise(pooled_sigma, df_total, "pooled across limits", float(d)) for d in own_df]
    trend = noise_trend(resid, leverage, limit, n_limits, df_total)
    out = []
    for k in range(n_limits):
        own = math.sqrt(own_ss[k] / own_df[k]) if own_df[k] > 0.5 else 0.0
        fitted, df = float(trend.trend[k]), float(trend.level_df[k])
        if own_df[k] >= min_own_df - 1e-9 and own > fitted:  # the trend's shape misses this limit: its own noise
            out.append(LimitNoise(own, df, "own cells", float(round(own_df[k]))))
        else:
            out.append(LimitNoise(fitted, df, "pooled across limits" if trend.pooled else "trend across limits",
                                  float(round(own_df[k]))))
    return out


def describe(noises: list[LimitNoise], *, pooled: bool = False) -> str:
    """One sentence: where the limits' noise came from."""
    if not noises or all(n.source == "unmeasured" for n in noises):
        return "run-to-run noise unmeasured (no replicated cell)"
    if all(n.zero for n in noises):
        return ZERO_NOTE
    if pooled:
        return "one pooled run-to-run noise for all limits (noise_model='pooled')"
    parts = []
    for src in ("trend across limits", "pooled across limits", "own cells"):
        k = sum(n.source == src for n in noises)
        if k:
            parts.append(f"{k} limit(s) from {'their own cells (above the trend)' if src == 'own cells' else src}")
    return ("run-to-run noise per limit: the log-linear trend of the noise across limits (the pooled noise when the "
            "runs show no trend) with the degrees of freedom of the trend at that limit, never below the limit's own "
            "replicated cells: " + ", ".join(parts))
