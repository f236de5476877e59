"""Dead zones: CPU limits at which a run is *slower* than at a lower limit.

Per group of runs (workload, threads, contention) the question is answered in
two steps, on the log scale (ratios of geometric means; see
:mod:`throttlelab.analysis.noise` for the noise model and its assumptions):

1. **Is run time monotone (non-increasing) in the limit at all?**  The
   isotonic fit of the limit means against the unconstrained means, with a
   least favourable (flat) simulated null (:mod:`~throttlelab.analysis.monotone_test`):
   ``monotone_p_value``.
2. **Where are the dead zones?**  For each limit ``j`` the baseline is the
   best (fastest) lower limit ``b(j)``; the one-sided null is "``j`` is at most
   ``threshold_pct`` slower than every lower limit".  The statistic is the
   studentised ``log(mean_j / mean_b(j)) - log(1 + threshold)``.  Its null
   distribution is simulated by a parametric bootstrap at a null curve (limits
   clearly inside their null stay at their estimate, every other limit sits
   on its boundary, running minimum + threshold: generalised moment
   selection, ``interior_k``), re-choosing
   the baseline in every draw, so the selection of the best lower limit is
   paid for.  Multiple limits are corrected by a step-down procedure
   (:mod:`~throttlelab.analysis.multiple_testing`): the default
   ``correction="maxt"`` is the Westfall-Young step-down max-T (Holm's
   procedure with the joint distribution of the tests instead of the
   Bonferroni bound); ``"holm"`` applies Holm to the per-limit p-values.
   Both adjusted p-values are always reported.

Each limit gets a verdict: ``dead zone`` (adjusted p < alpha), ``not a dead
zone`` (the upper confidence bound of the slowdown is below the threshold) or
``undecided`` (neither: the data cannot tell).  Consecutive dead-zone limits
form a :class:`~throttlelab.analysis.dead_zone_results.DeadZone` (results:
:mod:`~throttlelab.analysis.dead_zone_results`).  With fewer than three limits
nothing is decided; with no replicate the noise is an assumed prior and
results say so.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from scipy import stats

# DeadZoneAnalysis is also imported from here by report/charts/dead_zones.py.
from throttlelab.analysis.dead_zone_results import DeadZoneAnalysis, LimitTest, group_zones
from throttlelab.analysis.monotone_test import monotone_p_value
from throttlelab.analysis.multiple_testing import holm, maxt_stepdown
from throttlelab.analysis.noise import PRIOR_CV, LimitEffects, estimate_effects
from throttlelab.analysis.prepare import group_label, iter_groups, limit_label
from throttlelab.results import ConfidenceInterval


def find_dead_zones(
    runs: pl.DataFrame,
    *,
    threshold_pct: float = 5.0,
    alpha: float = 0.05,
    block: str | None = None,
    prior_cv: float = PRIOR_CV,
    correction: str = "maxt",
    n_sim: int = 20000,
    seed: int = 0,
    interior_k: float = 1.5,
) -> list[DeadZoneAnalysis]:
    """Dead-zone analysis of every group of prepared runs.

    Parameters
    ----------
    runs
        ``PreparedRuns.runs`` (see :func:`throttlelab.analysis.prepare.prepare_runs`).
    threshold_pct
        Practical threshold: a limit is in a dead zone only if it is slower
        than the best lower limit by at least this much.
    alpha
        Family-wise error rate per group.
    block
        Optional column whose levels are blocks (e.g. ``"experiment"``).
    prior_cv
        Run-to-run noise assumed when no limit is replicated.
    correction
        ``"maxt"`` (Westfall-Young step-down) or ``"holm"``.
    n_sim
        Monte-Carlo draws for the null distributions (seeded).
    interior_k
        Limits whose slowdown is below the threshold by more than this many
        standard errors are simulated at their estimate instead of on the null
        boundary (generalised moment selection, as in Hansen's test of
        superior predictive ability); the others sit on the boundary.
    """
    out = []
    for group, frame in iter_groups(runs):
        blocks = frame[block].to_numpy() if block and block in frame.columns else None
        effects = estimate_effects(
            frame["limit_order"].to_numpy(), frame["log_wall"].to_numpy(), blocks, block_name=block, prior_cv=prior_cv
        )
        cores = {o: c for o, c in zip(frame["limit_order"], frame["cpu_limit_cores"])}
        out.append(
            analyse_effects(
                effects, [cores[o] for o in effects.order], group=group, threshold_pct=threshold_pct,
                alpha=alpha, correction=correction, n_sim=n_sim, seed=seed, interior_k=interior_k,
            )
        )
    return out


def analyse_effects(
    effects: LimitEffects,
    limits_cores: list[float | None],
    *,
    group: dict | None = None,
    threshold_pct: float = 5.0,
    alpha: float = 0.05,
    correction: str = "maxt",
    n_sim: int = 20000,
    seed: int = 0,
    interior_k: float = 1.5,
) -> DeadZoneAnalysis:
    """Dead-zone analysis from fitted limit effects (the array-level core)."""
    if correction not in ("maxt", "holm"):
        raise ValueError("correction must be 'maxt' or 'holm'")
    group = group or {}
    labels = [limit_label(c) for c in limits_cores]
    mu, C, noise = effects.mean_log, effects.cov_unscaled, effects.noise
    J = len(mu)
    common = dict(
        group=group, label=group_label(group), threshold_pct=threshold_pct, alpha=alpha, correction=correction,
        noise=noise, block=effects.block, block_effects=effects.block_effects, runs=int(effects.n.sum()),
        assumption_based=noise.assumption_based,
    )
    if J < 3:
        limits = tuple(
            LimitTest(c, lab, int(n), None, None, None, None, None, None, None, None, "undecided")
            for c, lab, n in zip(limits_cores, labels, effects.n)
        )
        return DeadZoneAnalysis(decidable=False, reason=f"too few limits to decide ({J}; need 3 or more)",
                                monotone_p_value=None, zones=(), limits=limits, **common)
    rng = np.random.default_rng(seed)
    delta = math.log1p(threshold_pct / 100.0)
    sigma, df = noise.sigma, noise.df
    L = _cholesky(C)
    sig_draws = sigma * (np.sqrt(rng.chisquare(df, n_sim) / df) if math.isfinite(df) else np.ones(n_sim))

    # 1. global monotonicity: isotonic fit vs unconstrained means, flat (least favourable) null.
    monotone_p = monotone_p_value(mu, C, L, sigma, sig_draws, rng)

    # 2. per-limit one-sided tests against the best lower limit.
    t_obs, diff, var, base = _t_stats(mu[None, :], np.array([sigma]), C, delta)
    t_obs, diff, var, base = t_obs[0], diff[0], var[0], base[0]
    se_obs = sigma * np.sqrt(var)
    interior = (diff - delta) < -interior_k * se_obs
    interior[0] = True
    mu0 = _null_configuration(mu, delta, interior)
    draws = mu0[None, :] + (L @ rng.standard_normal((J, n_sim))).T * sigma
    t_null, _, var_null, _ = _t_stats(draws, sig_draws, C, delta)
    # Marginal p-values: limit j itself at its null boundary (running minimum + threshold).
    boundary = np.minimum.accumulate(mu0)
    shift = np.zeros(J)
    shift[1:] = boundary[:-1] + delta - mu0[1:]
    t_marg = t_null + shift[None, :] / (sig_draws[:, None] * np.sqrt(var_null))
    tested = np.arange(1, J)
    p_raw = np.full(J, np.nan)
    p_raw[tested] = (np.sum(t_marg[:, tested] >= t_obs[tested] - 1e-12, axis=0) + 1) / (n_sim + 1)
    p_holm = holm(p_raw)  # NaN (limit 0, not tested) stays out of the family
    p_maxt = maxt_stepdown(t_obs, t_null, tested)
    p_adj = p_maxt if correction == "maxt" else p_holm
    q = stats.t.ppf(1 - alpha / 2, df) if math.isfinite(df) else stats.norm.ppf(1 - alpha / 2)
    q1 = stats.t.ppf(1 - alpha, df) if math.isfinite(df) else stats.norm.ppf(1 - alpha)

    limits = [LimitTest(limits_cores[0], labels[0], int(effects.n[0]), None, None, None, None, None, None, None, None,
                        "lowest limit")]
    for j in tested:
        se = sigma * math.sqrt(var[j])
        ci = ConfidenceInterval(100 * math.expm1(diff[j] - q * se), 100 * math.expm1(diff[j] + q * se))
        if p_adj[j] < alpha:
            verdict = "dead zone"
        elif diff[j] + q1 * se < delta:
            verdict = "not a dead zone"
        else:
            verdict = "undecided"
        b = int(base[j])
        limits.append(LimitTest(
            limits_cores[j], labels[j], int(effects.n[j]), limits_cores[b], labels[b], 100 * math.expm1(diff[j]), ci,
            float(p_raw[j]), float(p_adj[j]), float(p_holm[j]), float(p_maxt[j]), verdict,
        ))
    zones = group_zones(limits)
    reason = "decided from replicated runs" if not noise.assumption_based else (
        f"no replicates: decided under an assumed {100 * math.expm1(noise.sigma):.0f}% run-to-run noise"
    )
    if not noise.assumption_based and df < 3:
        reason += f" (noise measured with only {df:g} degrees of freedom: wide intervals)"
    return DeadZoneAnalysis(decidable=True, reason=reason, monotone_p_value=monotone_p, zones=zones,
                            limits=tuple(limits), **common)


def _t_stats(M: np.ndarray, s: np.ndarray, C: np.ndarray, delta: float):
    """Studentised excess slowdown of each limit over its best lower limit, for each row of ``M``."""
    B, J = M.shape
    base = np.zeros((B, J), dtype=int)
    best = np.zeros(B, dtype=int)
    for j in range(1, J):
        better = M[:, j - 1] < M[np.arange(B), best]
        best = np.where(better, j - 1, best)
        base[:, j] = best
    rows = np.arange(B)[:, None]
    mb = M[rows, base]
    diff = M - mb
    var = np.diag(C)[None, :] + np.diag(C)[base] - 2 * C[np.arange(J)[None, :], base]
    var[:, 0] = 1.0
    t = (diff - delta) / (s[:, None] * np.sqrt(var))
    t[:, 0] = -np.inf
    return t, diff, var, base


def _null_configuration(mu: np.ndarray, delta: float, interior: np.ndarray) -> np.ndarray:
    """Null curve for the simulation (generalised moment selection).

    Limits clearly inside their null (``interior``: slowdown below the
    threshold by more than ``interior_k`` standard errors) stay at their
    estimate, capped at the running minimum + delta; every other limit is put
    on its null boundary, exactly ``delta`` above the running minimum (least
    favourable).
    """
    mu0 = mu.copy()
    run_min = mu0[0]
    for j in range(1, len(mu0)):
        mu0[j] = min(mu0[j], run_min + delta) if interior[j] else run_min + delta
        run_min = min(run_min, mu0[j])
    return mu0


def _cholesky(C: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.cholesky(C)
    except np.linalg.LinAlgError:
        return np.linalg.cholesky(C + 1e-12 * np.eye(len(C)))
