"""Dead zones: CPU limits at which a run is *slower* than at a lower limit.

Per group of runs (workload, threads, contention) the question is answered in
two steps, on the log scale (ratios of geometric means; see
:mod:`throttlelab.analysis.stats.noise` for the noise model and its assumptions):

1. **Is run time monotone (non-increasing) in the limit at all?**  The
   isotonic fit of the limit means against the unconstrained means, with a
   least favourable (flat) simulated null (:mod:`~throttlelab.analysis.stats.monotone_test`):
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
   paid for.  Each limit has its own run-to-run noise
   (:mod:`~throttlelab.analysis.stats.level_noise`: the log-linear trend of the
   noise over the limits, never below the pooled noise nor below the pooled
   noise of that limit and every larger one, which guards against a trend of
   the wrong shape; combined through a sandwich covariance so the experiment
   block still works), and every simulated draw refits it: each limit's noise
   varies as a chi-square with the degrees of freedom the fit has at that
   limit (fewer at the ends of the sweep), the limits together as the fitted
   line moves.  Multiple limits: the
   default ``correction="maxt"`` takes the single-step max-T critical value
   (Westfall-Young: the joint null distribution of the correlated tests) of
   the re-centred statistics (each simulated slowdown minus its value in the
   simulated curve, studentised), turns it into simultaneous bounds that
   always run low to high around the estimate, and reads the adjusted p-value
   off the same distribution; ``"holm"`` uses Bonferroni bounds and
   reports Holm p-values.  Step-down max-T and Holm p-values are always
   reported; ``procedure`` names what decided and why.

Each limit's verdict is read off its simultaneous interval, so verdict and
interval cannot disagree: ``dead zone`` (lower bound above the threshold),
``not a dead zone`` (upper bound below it) or ``undecided``.  Consecutive
dead-zone limits form a :class:`~throttlelab.analysis.limits.dead_zone_results.DeadZone`
(results: :mod:`~throttlelab.analysis.limits.dead_zone_results`).  Outlying runs
(:func:`~throttlelab.analysis.stats.run_level.flag_outliers`, against the noise of
the limit and its neighbours, beyond ``OUTLIER_Z`` robust scales) are flagged,
reported and left out.  With fewer
than three limits, or no replicated limit (run-to-run noise unmeasured), the
answer is "too few to decide": no verdicts, no p-values from a prior, and the
runs per limit that would decide (``replicates_needed``).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from throttlelab.core.quantities import format_millicores
from throttlelab.analysis.limits.dead_zone_results import TOO_FEW, DeadZoneAnalysis, LimitTest, group_zones
from throttlelab.analysis.limits.dead_zone_tests import exact_limit_tests, limit_tests
from throttlelab.analysis.stats import level_covariance, pooled_covariance
from throttlelab.analysis.stats import ZERO_NOTE, ZERO_SIGMA
from throttlelab.analysis.stats import PRIOR_CV, LimitEffects, NoiseModel, estimate_effects
from throttlelab.analysis.runs import group_label, iter_groups
from throttlelab.analysis.stats import flag_outliers
from throttlelab.analysis.stats import replicates_needed

#: Robust z beyond which a run is flagged and left out.  Three runs per limit give a robust scale from nine pairs,
#: too unsure for the usual bar of 4 when noise grows along the limits: with noise growing 3% -> 25% and no outlying
#: run, genuine runs were flagged (and left out, shifting their limit's mean) in about one null sweep in seven.
OUTLIER_Z = 5.0


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
    detect_pct: float = 30.0,
    outlier_z: float = OUTLIER_Z,
) -> list[DeadZoneAnalysis]:
    """Dead-zone analysis of every group of prepared runs.

    Parameters
    ----------
    runs
        ``PreparedRuns.runs`` (see :func:`throttlelab.analysis.runs.prepare.prepare_runs`).
    threshold_pct
        Practical threshold: a limit is in a dead zone only if it is slower
        than the best lower limit by at least this much.
    alpha
        Family-wise error rate per group.
    block
        Optional column whose levels are blocks (e.g. ``"experiment"``).
    prior_cv
        Kept for compatibility: no verdict is taken from a prior any more (with no
        replicated limit the answer is "too few to decide").
    correction
        ``"maxt"`` (single-step max-T simultaneous bounds) or ``"holm"`` (Bonferroni bounds, Holm p-values).
    n_sim
        Monte-Carlo draws for the null distributions (seeded).
    interior_k
        Limits whose slowdown is below the threshold by more than this many
        standard errors are simulated at their estimate instead of on the null
        boundary (generalised moment selection, as in Hansen's test of
        superior predictive ability); the others sit on the boundary.
    detect_pct
        Slowdown for which the runs per limit needed (80% power) are stated.
    outlier_z
        Robust z beyond which a run is flagged as outlying and left out (see ``OUTLIER_Z``).
    """
    out = []
    for group, frame in iter_groups(runs):
        order = frame["limit_order"].to_numpy()
        log_y = frame["log_wall"].to_numpy()
        ids = frame["run_id"].cast(pl.String).to_list() if "run_id" in frame.columns else \
            [str(i) for i in range(frame.height)]
        labels_of = {o: format_millicores(c) for o, c in zip(frame["limit_order"], frame["cpu_limit_cores"])}
        levels = {labels_of[o]: log_y[order == o] for o in sorted(set(order))}
        run_ids = {labels_of[o]: [i for i, k in zip(ids, order) if k == o] for o in sorted(set(order))}
        flagged = tuple(flag_outliers(levels, run_ids, values={k: np.exp(v) for k, v in levels.items()}, neighbours=1,
                                      z=outlier_z))
        drop = {(f.level, f.run) for f in flagged}
        keep = np.array([(labels_of[o], i) not in drop for o, i in zip(order, ids)])
        blocks = frame[block].to_numpy()[keep] if block and block in frame.columns else None
        effects = estimate_effects(order[keep], log_y[keep], blocks, block_name=block, prior_cv=prior_cv)
        cores = {o: c for o, c in zip(frame["limit_order"], frame["cpu_limit_cores"])}
        out.append(
            analyse_effects(
                effects, [cores[o] for o in effects.order], group=group, threshold_pct=threshold_pct,
                alpha=alpha, correction=correction, n_sim=n_sim, seed=seed, interior_k=interior_k,
                log_y=log_y[keep], outlying_runs=flagged, detect_pct=detect_pct,
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
    log_y: np.ndarray | None = None,
    outlying_runs: tuple = (),
    detect_pct: float = 30.0,
) -> DeadZoneAnalysis:
    """Dead-zone analysis from fitted limit effects (the array-level core).

    ``log_y`` (the runs' log times, in the order of ``effects.design``) gives the per-limit noise; without it
    every limit shares the pooled noise of ``effects``.
    """
    if correction not in ("maxt", "holm"):
        raise ValueError("correction must be 'maxt' or 'holm'")
    group = group or {}
    labels = [format_millicores(c) for c in limits_cores]
    mu, noise = effects.mean_log, effects.noise
    J = len(mu)
    procedure = PROCEDURES[correction]
    common = dict(
        group=group, label=group_label(group), threshold_pct=threshold_pct, alpha=alpha, correction=correction,
        block=effects.block, block_effects=effects.block_effects, runs=int(effects.n.sum()),
        outlying_runs=tuple(outlying_runs), procedure=procedure,
    )
    if log_y is not None and effects.design is not None and not noise.assumption_based:
        lv, G = level_covariance(effects, np.asarray(log_y, float))
    elif not noise.assumption_based:
        lv, G = pooled_covariance(effects)
    else:
        lv, G = None, None
    sigma_mid = float(np.nanmedian(lv.sigma)) if lv is not None else None
    if sigma_mid is not None and sigma_mid <= ZERO_SIGMA:
        sigma_mid = 0.0
    effect = 100 * ((1 + detect_pct / 100) / (1 + threshold_pct / 100) - 1)
    if lv is None:
        basis = _unreplicated_basis(mu)
    elif not sigma_mid:
        basis = "run-to-run noise is zero: no more runs are needed"
    else:
        basis = (f"median per-limit noise; a {detect_pct:g}% slowdown is {effect:.0f}% beyond the "
                 f"{threshold_pct:g}% threshold; two-sided, before multiplicity")
    need = replicates_needed(sigma_mid, effect_pct=effect, alpha=alpha, basis=basis)
    if lv is not None:
        noise = NoiseModel(sigma_mid, float(np.nanmedian(lv.df)), noise.source + (
            ", pooled" if lv.pooled else f", log-linear trend over the limits (x{math.exp(lv.slope):.2f} from lowest to highest)"), False,
            noise.replicated_limits, ZERO_NOTE if sigma_mid == 0 else noise.note)
    common |= dict(noise=noise, assumption_based=False, replicates_needed=need)

    def undecided(reason: str) -> DeadZoneAnalysis:
        limits = tuple(
            LimitTest(c, lab, int(n), verdict=TOO_FEW)
            for c, lab, n in zip(limits_cores, labels, effects.n)
        )
        return DeadZoneAnalysis(decidable=False, reason=reason, monotone_p_value=None, zones=(), limits=limits,
                                **common)

    if J < 3:
        return undecided(f"{TOO_FEW}: too few limits ({J}; need 3 or more)")
    if lv is None:
        return undecided(f"{TOO_FEW}: no limit has two runs, so run-to-run noise is unmeasured (no verdict from a "
                         f"prior); {_need_text(need)}")
    if not np.nanmax(lv.sigma) > ZERO_SIGMA:
        return _exact(mu, limits_cores, labels, effects.n, threshold_pct, common)
    monotone_p, limits = limit_tests(mu, lv, G, effects, limits_cores, labels, threshold_pct=threshold_pct,
                                     alpha=alpha, correction=correction, n_sim=n_sim, seed=seed, interior_k=interior_k)
    dmin = float(np.min(lv.df))
    zones = group_zones(limits)
    unrep = int((effects.n < 2).sum())
    reason = "decided from replicated runs" + (
        f" ({unrep} limit(s) with one run borrow the common noise)" if unrep else "")
    if outlying_runs:
        reason += f"; {len(outlying_runs)} outlying run(s) flagged and left out"
    if math.isfinite(dmin) and dmin < 3:
        reason += f" (noise measured with only {dmin:g} degrees of freedom: wide intervals)"
    return DeadZoneAnalysis(decidable=True, reason=reason, monotone_p_value=monotone_p, zones=zones,
                            limits=tuple(limits), **common)


PROCEDURES = {
    "maxt": ("single-step max-T over the tested limits (Westfall-Young; uses the joint null distribution of the "
             "correlated tests, which share baselines, re-centred on the simulated curve): each verdict is read off "
             "a simultaneous one-sided bound, so verdicts, intervals and adjusted p-values agree; step-down max-T and "
             "Holm p-values are shown for reference"),
    "holm": ("Bonferroni simultaneous bounds decide the verdicts (so verdicts and intervals agree); Holm step-down "
             "p-values are reported"),
}


def _exact(mu: np.ndarray, limits_cores: list, labels: list[str], n: np.ndarray, threshold_pct: float,
           common: dict) -> DeadZoneAnalysis:
    """Zero run-to-run noise: each limit's exact slowdown against its best lower limit, verdicts without a test."""
    limits = exact_limit_tests(mu, limits_cores, labels, n, threshold_pct)
    return DeadZoneAnalysis(decidable=True, reason="exact: " + ZERO_NOTE + "; a verdict is the exact slowdown against "
                            f"the {threshold_pct:g}% threshold", monotone_p_value=None, zones=group_zones(limits),
                            limits=tuple(limits), **common)


def _unreplicated_basis(mu: np.ndarray) -> str:
    return "no replicated limit: run-to-run noise unmeasured; run every limit at least twice"


def _need_text(need) -> str:
    if need.runs_per_level is None:
        return need.basis
    return (f"{need.runs_per_level} runs per limit would detect a {need.effect_pct:.0f}% effect with "
            f"{need.power:.0%} power")
