"""Each limit tested against its best lower limit by simulation: simultaneous bounds, adjusted p-values and verdicts."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from throttlelab.core.ordering import argbest
from throttlelab.analysis.limits.dead_zone_results import LimitTest
from throttlelab.analysis.stats import (cholesky, excess_statistics, null_configuration,
                                                   per_limit_covariance, satterthwaite_df)
from throttlelab.analysis.stats import monotone_p_value
from throttlelab.analysis.stats import holm, maxt_stepdown
from throttlelab.analysis.stats import LimitEffects
from throttlelab.results import Estimate
from throttlelab.stats import cv_of_log_sd, dead_zone_margin, slowdown_over_lower


def noise_cv_pct(sigma: float) -> float | None:
    """Run-to-run noise of the log scale as a coefficient of variation in percent (``None`` if unknown)."""
    return 100 * cv_of_log_sd(sigma) if math.isfinite(sigma) else None


def limit_tests(mu: np.ndarray, lv, G: np.ndarray, effects: LimitEffects, limits_cores: list, labels: list[str], *,
                threshold_pct: float, alpha: float, correction: str, n_sim: int, seed: int,
                interior_k: float) -> tuple[float, list[LimitTest]]:
    """The monotonicity p-value and one :class:`LimitTest` per limit (the lowest first, untested).

    ``mu`` are the limits' mean log times, ``lv`` their noise (``sigma``, ``df`` per limit) and ``G`` its
    weights (:func:`~throttlelab.analysis.stats.excess_over_best.level_covariance`); the procedure is the one
    :mod:`throttlelab.analysis.limits.dead_zones` describes (``correction`` ``"maxt"`` or ``"holm"``).
    """
    J = len(mu)
    rng = np.random.default_rng(seed)
    delta = dead_zone_margin(threshold_pct)
    sig2 = lv.sigma**2
    df = lv.level_df
    dmin = float(np.min(df))
    # One noise fit serves every limit: each simulated refit moves the limits' noise together, each limit as a
    # chi-square with the degrees of freedom the fit has there (fewer at the ends of the sweep).
    chi = rng.chisquare(dmin, n_sim) / dmin if math.isfinite(dmin) else np.ones(n_sim)
    S2 = sig2[None, :] * lv.variance_draws(rng, n_sim)
    C = np.einsum("k,kij->ij", sig2, per_limit_covariance(effects))
    L = cholesky(C)

    # 1. global monotonicity: isotonic fit vs unconstrained means, flat (least favourable) null.
    sig_draws = np.sqrt(chi)
    monotone_p = monotone_p_value(mu, C, L, 1.0, sig_draws, rng)

    # 2. per-limit one-sided tests against the best lower limit.
    t_obs, diff, var, base = excess_statistics(mu[None, :], sig2[None, :], G, delta)
    t_obs, diff, var, base = t_obs[0], diff[0], var[0], base[0]
    se_obs = np.sqrt(var)
    interior = (diff - delta) < -interior_k * se_obs
    interior[0] = True
    mu0 = null_configuration(mu, delta, interior)
    draws = mu0[None, :] + (L @ rng.standard_normal((J, n_sim))).T
    t_null, diff_null, var_null, _ = excess_statistics(draws, S2, G, delta)
    # Re-centred statistics: each simulated slowdown minus its true value in the simulated curve (the limit over its
    # best lower limit there), studentised.  Their largest value is the pivot of simultaneous bounds: t_null, centred
    # on the threshold, sits far below 0 for limits clearly faster than their baseline, and its quantile can then be
    # negative (bounds in reverse order).
    true_diff = slowdown_over_lower(mu0)
    r_null = (diff_null - true_diff[None, :]) / np.sqrt(var_null)
    boundary = np.minimum.accumulate(mu0)
    shift = np.zeros(J)
    shift[1:] = boundary[:-1] + delta - mu0[1:]
    t_marg = t_null + shift[None, :] / np.sqrt(var_null)
    tested = np.arange(1, J)
    p_raw = np.full(J, np.nan)
    p_raw[tested] = (np.sum(t_marg[:, tested] >= t_obs[tested] - 1e-12, axis=0) + 1) / (n_sim + 1)
    p_holm = holm(p_raw)
    p_maxt = maxt_stepdown(t_obs, t_null, tested)
    # The lower bounds (which claim dead zones) take the largest re-centred statistic over the limits that could be
    # dead zones (moment selection: not clearly inside their null), as the test does; the upper bounds (which clear
    # a limit) the largest over every tested limit.  With no limit outside its null, every tested limit counts.
    claimable = tested[~interior[tested]]
    rmax = np.max(r_null[:, claimable if claimable.size else tested], axis=1)
    p_single = np.full(J, np.nan)
    p_single[tested] = (np.sum(rmax[:, None] >= t_obs[None, tested] - 1e-12, axis=0) + 1) / (n_sim + 1)
    m = len(tested)
    if correction == "maxt":  # one-sided simultaneous bounds from the largest re-centred statistic on either side
        crit_lo = np.full(J, max(float(np.quantile(rmax, 1 - alpha)), 0.0))
        crit_hi = np.full(J, max(float(np.quantile(np.max(-r_null[:, tested], axis=1), 1 - alpha)), 0.0))
        p_adj = p_single
    else:
        wdf = satterthwaite_df(sig2, df, G, base)
        crit_lo = crit_hi = stats.t.ppf(1 - alpha / m, np.where(np.isfinite(wdf), wdf, 1e6))
        p_adj = p_holm
    limits = [LimitTest(limits_cores[0], labels[0], int(effects.n[0]), verdict="lowest limit",
                        noise_cv_pct=noise_cv_pct(lv.sigma[0]))]
    method = ("simultaneous bound, single-step max-T over the tested limits" if correction == "maxt" else
              "simultaneous Bonferroni bound, Holm p-value")
    for j in tested:
        lo, hi = diff[j] - crit_lo[j] * se_obs[j], diff[j] + crit_hi[j] * se_obs[j]  # lo <= estimate <= hi
        # The verdict is read off the simultaneous interval, so the two can never disagree.
        verdict = "dead zone" if lo > delta else ("not a dead zone" if hi < delta else "undecided")
        b = int(base[j])
        slowdown = Estimate(100 * math.expm1(diff[j]), 100 * math.expm1(lo), 100 * math.expm1(hi), 1 - alpha, method,
                            float(p_adj[j]), int(effects.n[j] + effects.n[b]), "pct",
                            f"{labels[j]} against {labels[b]}, H0: at most {threshold_pct:g}% slower")
        limits.append(LimitTest(
            limits_cores[j], labels[j], int(effects.n[j]), limits_cores[b], labels[b], slowdown,
            float(p_raw[j]), float(p_holm[j]), float(p_maxt[j]), verdict, noise_cv_pct(lv.sigma[j]),
        ))
    return monotone_p, limits


def exact_limit_tests(mu: np.ndarray, limits_cores: list, labels: list[str], n: np.ndarray,
                      threshold_pct: float) -> list[LimitTest]:
    """Zero run-to-run noise: each limit's exact slowdown against its best lower limit, verdicts without a test."""
    delta = dead_zone_margin(threshold_pct)
    limits = [LimitTest(limits_cores[0], labels[0], int(n[0]), verdict="lowest limit", noise_cv_pct=0.0)]
    for j in range(1, len(mu)):
        b = argbest(mu[:j])
        diff = float(mu[j] - mu[b])
        slowdown = Estimate(100 * math.expm1(diff), None, None, method="exact: zero run-to-run noise, no test",
                            n_runs=int(n[j] + n[b]), unit="pct", note=f"{labels[j]} against {labels[b]}")
        limits.append(LimitTest(limits_cores[j], labels[j], int(n[j]), limits_cores[b], labels[b], slowdown,
                                verdict="dead zone" if diff > delta + 1e-12 else "not a dead zone", noise_cv_pct=0.0))
    return limits
