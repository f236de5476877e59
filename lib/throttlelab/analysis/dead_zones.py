"""Dead zones: CPU limits at which a run is *slower* than at a lower limit.

Per group of runs (workload, threads, contention) the question is answered in
two steps, on the log scale (ratios of geometric means; see
:mod:`throttlelab.analysis.noise` for the noise model and its assumptions):

1. **Is run time monotone (non-increasing) in the limit at all?**  The
   isotonic (non-increasing) regression of the limit means
   (``scipy.optimize.isotonic_regression``, weights = runs per limit) is
   compared with the unconstrained means; the statistic is the weighted sum of
   squared violations over ``sigma^2``.  Its null distribution is simulated at
   the least favourable monotone curve (all limits equal), so the test keeps
   its level whatever the true monotone curve is: ``monotone_p_value``.
2. **Where are the dead zones?**  For each limit ``j`` the baseline is the
   best (fastest) lower limit ``b(j)``; the one-sided null is "``j`` is at most
   ``threshold_pct`` slower than every lower limit".  The statistic is the
   studentised ``log(mean_j / mean_b(j)) - log(1 + threshold)``.  Its null
   distribution is simulated by a parametric bootstrap at a null curve (limits
   clearly inside their null stay at their estimate, every other limit sits
   on its boundary, running minimum + threshold: generalised moment
   selection, ``interior_k``), re-choosing
   the baseline in every draw, so the selection of the best lower limit is
   paid for.  Multiple limits are corrected by a step-down procedure: the
   default ``correction="maxt"`` is the Westfall-Young step-down max-T (Holm's
   procedure with the joint distribution of the tests instead of the
   Bonferroni bound); ``"holm"`` applies Holm to the per-limit p-values.
   Both adjusted p-values are always reported.

Each limit gets a verdict: ``dead zone`` (adjusted p < alpha), ``not a dead
zone`` (the upper confidence bound of the slowdown is below the threshold) or
``undecided`` (neither: the data cannot tell).  Consecutive dead-zone limits
form a :class:`DeadZone`.  With fewer than three limits nothing is decided;
with no replicate the noise is an assumed prior and results say so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats
from scipy.optimize import isotonic_regression

from throttlelab.analysis.noise import PRIOR_CV, LimitEffects, NoiseModel, estimate_effects
from throttlelab.analysis.prepare import group_label, iter_groups, limit_label
from throttlelab.results import ConfidenceInterval

VERDICTS = ("dead zone", "not a dead zone", "undecided", "lowest limit")


@dataclass(frozen=True)
class LimitTest:
    """One limit compared with its best lower limit."""

    limit_cores: float | None
    limit_label: str
    runs: int
    baseline_limit_cores: float | None
    baseline_label: str | None
    slowdown_pct: float | None
    slowdown_ci_pct: ConfidenceInterval | None
    p_value_raw: float | None
    p_value: float | None  # adjusted with the chosen correction
    p_value_holm: float | None
    p_value_maxt: float | None
    verdict: str

    def confidence_interval(self) -> ConfidenceInterval | None:
        return self.slowdown_ci_pct


@dataclass(frozen=True)
class DeadZone:
    """Consecutive limits slower than the best lower limit by at least the threshold."""

    limits_cores: tuple[float | None, ...]
    limits_labels: tuple[str, ...]
    baseline_limit_cores: float | None
    baseline_label: str
    worst_limit_label: str
    slowdown_pct: float  # at the worst limit
    slowdown_ci_pct: ConfidenceInterval
    p_value: float  # largest adjusted p-value of the zone's limits

    def confidence_interval(self) -> ConfidenceInterval:
        return self.slowdown_ci_pct


@dataclass(frozen=True)
class DeadZoneAnalysis:
    """Dead-zone analysis of one group of runs."""

    group: dict
    label: str
    decidable: bool
    reason: str
    assumption_based: bool
    threshold_pct: float
    alpha: float
    correction: str
    monotone_p_value: float | None
    zones: tuple[DeadZone, ...]
    limits: tuple[LimitTest, ...]
    noise: NoiseModel
    block: str | None
    block_effects: dict
    runs: int

    def limits_table(self) -> pl.DataFrame:
        rows = []
        for t in self.limits:
            ci = t.slowdown_ci_pct
            rows.append({
                "group": self.label, "limit": t.limit_label, "limit_cores": t.limit_cores, "runs": t.runs,
                "baseline": t.baseline_label, "slowdown_pct": t.slowdown_pct,
                "slowdown_ci_low_pct": ci.low if ci else None, "slowdown_ci_high_pct": ci.high if ci else None,
                "p_value_raw": t.p_value_raw, "p_value": t.p_value, "p_value_holm": t.p_value_holm,
                "verdict": t.verdict,
            })
        return pl.DataFrame(rows, schema_overrides={"limit_cores": pl.Float64, "baseline": pl.String})


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
    w = 1.0 / np.diag(C)
    iso = isotonic_regression(mu, weights=w, increasing=False).x
    stat_obs = float(np.sum(w * (mu - iso) ** 2) / sigma**2)
    flat = (L @ rng.standard_normal((J, n_sim))).T  # unit noise; sigma cancels in the statistic
    stat_null = np.sum(w * (flat - _isotonic_decreasing_rows(flat, w)) ** 2, axis=1) / (sig_draws / sigma) ** 2
    monotone_p = float((np.sum(stat_null >= stat_obs - 1e-12) + 1) / (n_sim + 1))

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
    p_holm = _holm(p_raw, tested)
    p_maxt = _maxt_stepdown(t_obs, t_null, tested)
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
    zones = _zones(limits)
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


def _holm(p: np.ndarray, tested: np.ndarray) -> np.ndarray:
    out = np.full_like(p, np.nan)
    order = tested[np.argsort(p[tested], kind="stable")]
    m, running = len(order), 0.0
    for k, j in enumerate(order):
        running = max(running, min(1.0, (m - k) * p[j]))
        out[j] = running
    return out


def _maxt_stepdown(t_obs: np.ndarray, t_null: np.ndarray, tested: np.ndarray) -> np.ndarray:
    """Westfall-Young step-down adjusted p-values for one-sided max-T."""
    out = np.full(len(t_obs), np.nan)
    order = tested[np.argsort(-t_obs[tested], kind="stable")]
    n_sim, running = t_null.shape[0], 0.0
    for k, j in enumerate(order):
        mx = t_null[:, order[k:]].max(axis=1)
        p = (np.sum(mx >= t_obs[j] - 1e-12) + 1) / (n_sim + 1)
        running = max(running, p)
        out[j] = running
    return out


def _isotonic_decreasing_rows(M: np.ndarray, w: np.ndarray) -> np.ndarray:
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


def _cholesky(C: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.cholesky(C)
    except np.linalg.LinAlgError:
        return np.linalg.cholesky(C + 1e-12 * np.eye(len(C)))


def _zones(limits: list[LimitTest]) -> tuple[DeadZone, ...]:
    zones, current = [], []
    for t in [*limits, None]:
        if t is not None and t.verdict == "dead zone":
            current.append(t)
            continue
        if current:
            worst = max(current, key=lambda x: x.slowdown_pct)
            zones.append(DeadZone(
                limits_cores=tuple(x.limit_cores for x in current),
                limits_labels=tuple(x.limit_label for x in current),
                baseline_limit_cores=current[0].baseline_limit_cores,
                baseline_label=current[0].baseline_label,
                worst_limit_label=worst.limit_label,
                slowdown_pct=worst.slowdown_pct,
                slowdown_ci_pct=worst.slowdown_ci_pct,
                p_value=max(x.p_value for x in current),
            ))
            current = []
    return tuple(zones)
