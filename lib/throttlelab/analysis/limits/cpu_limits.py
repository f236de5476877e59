"""Everything notebook 03 asks of a limit sweep, per group of runs.

:func:`analyse_cpu_limits` runs, for each (workload, threads, contention)
group: the per-limit summary, the scaling fits (Amdahl, USL, quota; AIC),
the knee, the dead-zone analysis (pooled, and with ``experiment`` as a
block when a group spans several experiments: then the block model is
primary) and the recommendation;
:func:`dead_zone_sentences` says each verdict in one plain sentence.
:mod:`throttlelab.analysis.limits.cpu_limit_results` turns the groups into the
notebook's ``results.json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl

from throttlelab.analysis.limits.dead_zone_results import DeadZoneAnalysis
from throttlelab.analysis.limits.dead_zones import find_dead_zones
from throttlelab.analysis.runs import PreparedRuns, group_label, iter_groups, limit_summary
from throttlelab.analysis.limits.recommend import Knee, Recommendation, find_knee, recommend_limit
from throttlelab.analysis.runs import (RESPONSE_METRICS, ResponseMetric, metric_change_ci,
                                                  metric_change_pct, resolve, worse_word)
from throttlelab.analysis.limits.scaling import fit_runtime_models
from throttlelab.analysis.limits.scaling_models import ScalingFit
from throttlelab.stats import KNEE_TOLERANCE_PCT, PRIOR_CV


@dataclass(frozen=True)
class GroupAnalysis:
    """Notebook 03's analysis of one group; ``parameters``: the arguments of :func:`analyse_cpu_limits` that made it."""

    group: dict
    label: str
    summary: pl.DataFrame
    fits: tuple[ScalingFit, ...]
    fit_note: str
    knee: Knee
    dead_zones: DeadZoneAnalysis
    dead_zones_block: DeadZoneAnalysis | None
    recommendation: Recommendation
    metric: ResponseMetric = RESPONSE_METRICS["wall_seconds"]
    parameters: dict[str, Any] = field(default_factory=dict)

    @property
    def primary_dead_zones(self) -> DeadZoneAnalysis:
        """The analysis the verdicts and the recommendation use: with experiment as a block when the group spans
        several experiments that share limits (their run-to-run offsets are not noise), else pooled."""
        b = self.dead_zones_block
        return b if b is not None and b.block else self.dead_zones


def analyse_cpu_limits(
    prepared: PreparedRuns,
    *,
    threshold_pct: float = 5.0,
    knee_tolerance_pct: float = KNEE_TOLERANCE_PCT,
    alpha: float = 0.05,
    prior_cv: float = PRIOR_CV,
    n_boot: int = 200,
    n_sim: int = 20000,
    seed: int = 0,
    block: str | None = "experiment",
    metric: str | ResponseMetric | None = None,
) -> list[GroupAnalysis]:
    """Analyse every group of a prepared runs table.

    ``metric``: the response metric (``None``: the one ``prepared`` was made
    with; another one raises ``ValueError``).  Fits, knee, dead zones and the
    recommendation work on its cost (``*_seconds`` fields: the metric, or
    ``1 / metric`` when higher is better), so "slowdown" reads "worse".

    ``block``: when the group spans several levels of this column (e.g. two
    experiments), the dead-zone analysis is repeated with it as a block
    effect; that one is primary (verdicts, recommendation) and the pooled
    one is reported next to it.
    """
    m = resolve(metric or prepared.metric)
    if m != prepared.metric:
        raise ValueError(f"runs were prepared for {prepared.metric.name}, not {m.name}: "
                         f"call prepare_runs(..., metric={m.name!r})")
    parameters = {"threshold_pct": threshold_pct, "knee_tolerance_pct": knee_tolerance_pct, "alpha": alpha,
                  "prior_cv": prior_cv, "n_boot": n_boot, "n_sim": n_sim, "seed": seed, "block": block}
    out = []
    zones = {g.label: g for g in find_dead_zones(prepared.runs, threshold_pct=threshold_pct, alpha=alpha,
                                                   prior_cv=prior_cv, n_sim=n_sim, seed=seed)}
    for group, frame in iter_groups(prepared.runs):
        label = group_label(group)
        summary = limit_summary(frame)
        fitted = frame.filter(pl.col("limit_x").is_not_null())
        fits, note = (), ""
        if fitted["limit_x"].n_unique() >= 4:
            fits = tuple(fit_runtime_models(fitted["limit_x"].to_numpy(), fitted["wall_seconds"].to_numpy(),
                                            n_boot=n_boot, seed=seed))
        else:
            note = f"not fitted: {fitted['limit_x'].n_unique()} numeric limits (need 4)"
        if fitted.height < frame.height:
            note = (note + "; " if note else "") + "unlimited runs left out of fits (machine size unknown)"
        dz_block = None
        if block and block in frame.columns and frame[block].n_unique() > 1:
            [dz_block] = find_dead_zones(frame, threshold_pct=threshold_pct, alpha=alpha, block=block,
                                         prior_cv=prior_cv, n_sim=n_sim, seed=seed)
        dz = zones[label]
        primary = dz_block if dz_block is not None and dz_block.block else dz
        threads = group.get("threads")
        out.append(GroupAnalysis(
            group=group, label=label, summary=summary, fits=fits, fit_note=note,
            knee=find_knee(summary, tolerance_pct=knee_tolerance_pct), dead_zones=dz, dead_zones_block=dz_block,
            recommendation=recommend_limit(summary, primary, tolerance_pct=knee_tolerance_pct, threads=threads),
            metric=m, parameters=parameters,
        ))
    return out


def zone_label(zone) -> str:
    """A dead zone's limits as one label: ``6000m`` or ``6000m-7000m``."""
    labels = zone.limits_labels
    return labels[0] if len(labels) == 1 else f"{labels[0]}-{labels[-1]}"


def dead_zone_sentences(analysis: DeadZoneAnalysis, metric: str | ResponseMetric | None = None) -> list[str]:
    """One plain sentence per tested limit: slowdown, interval, adjusted p, verdict.

    For a metric other than wall time the change is that of the metric itself
    (e.g. throughput -20%, 95% CI ...), "worse" meaning its bad direction.
    """
    m = resolve(metric)
    if m.name != "wall_seconds":
        return _metric_dead_zone_sentences(analysis, m)
    out = [f"{analysis.label}: {analysis.reason}; noise {analysis.noise.cv_pct:.1f}% "
           f"({analysis.noise.source}, df={analysis.noise.df:g})."]
    if analysis.procedure:
        out.append(f"Multiple comparisons: {analysis.procedure}.")
    for o in analysis.outlying_runs:
        out.append(f"Outlying run {o.run} at {o.level}: {o.deviation_pct:+.0f}% from the other runs there "
                   f"(robust z {o.robust_z:.1f}); flagged and left out.")
    need = analysis.replicates_needed
    if need is not None and need.runs_per_level is not None:
        out.append(f"Runs per limit to detect a {need.effect_pct:.0f}% excess slowdown with {need.power:.0%} power at "
                   f"the measured noise: {need.runs_per_level}.")
    if analysis.monotone_p_value is not None:
        out.append(f"Monotonicity (isotonic fit vs means, flat null): p = {analysis.monotone_p_value:.3f}.")
    for t in analysis.limits:
        if t.slowdown is None:
            continue
        ci = t.slowdown.confidence_interval()
        if ci is None:  # zero run-to-run noise: exact
            out.append(f"{t.limit_label} vs {t.baseline_label}: {t.slowdown.value:+.1f}% (exact: zero run-to-run noise), "
                       f"{t.runs} run(s): {t.verdict}.")
            continue
        out.append(
            f"{t.limit_label} vs {t.baseline_label}: {t.slowdown.value:+.1f}% (simultaneous {100 * (1 - analysis.alpha):.0f}% "
            f"bounds {ci.low:+.1f}% to {ci.high:+.1f}%), "
            f"adjusted p = {t.slowdown.p_value:.3f} (Holm {t.p_value_holm:.3f}), {t.runs} run(s): {t.verdict}"
            + (f" (slower, but by less than the {analysis.threshold_pct:g}% threshold)."
               if t.verdict == "not a dead zone" and ci.low > 0 else ".")
        )
    for z in analysis.zones:
        if z.slowdown.low is None:
            out.append(f"Dead zone {zone_label(z)}: {z.slowdown.value:+.1f}% slower than {z.baseline_label} "
                       "(exact: zero run-to-run noise, no test needed).")
            continue
        out.append(
            f"Dead zone {zone_label(z)}: "
            f"up to {z.slowdown.value:+.1f}% (simultaneous {100 * (1 - analysis.alpha):.0f}% bounds "
            f"{z.slowdown.low:+.1f}% to "
            f"{z.slowdown.high:+.1f}%) slower than {z.baseline_label}, max-T adjusted p = {z.slowdown.p_value:.3f}."
        )
    return out


def _metric_dead_zone_sentences(analysis: DeadZoneAnalysis, m: ResponseMetric) -> list[str]:
    out = [f"{analysis.label} ({m.label}, {m.direction}): {analysis.reason}; noise {analysis.noise.cv_pct:.1f}% "
           f"({analysis.noise.source}, df={analysis.noise.df:g})."]
    for t in analysis.limits:
        if t.slowdown is None:
            continue
        if t.slowdown.low is None:  # zero run-to-run noise: exact
            out.append(f"{t.limit_label} vs {t.baseline_label}: {m.label} {metric_change_pct(t.slowdown.value, m):+.1f}% "
                       f"(exact: zero run-to-run noise), {t.runs} run(s): {t.verdict}.")
            continue
        ci = metric_change_ci(t.slowdown.confidence_interval(), m)
        out.append(
            f"{t.limit_label} vs {t.baseline_label}: {m.label} {metric_change_pct(t.slowdown.value, m):+.1f}% "
            f"(simultaneous {100 * (1 - analysis.alpha):.0f}% bounds {ci.low:+.1f}% to {ci.high:+.1f}%), "
            f"adjusted p = {t.slowdown.p_value:.3f} (Holm {t.p_value_holm:.3f}), {t.runs} run(s): {t.verdict}."
        )
    for z in analysis.zones:
        if z.slowdown.low is None:
            out.append(f"Dead zone {zone_label(z)}: {worse_word(m)} than {z.baseline_label}: {m.label} "
                       f"{metric_change_pct(z.slowdown.value, m):+.1f}% (exact: zero run-to-run noise, no test needed).")
            continue
        ci = metric_change_ci(z.slowdown.confidence_interval(), m)
        out.append(
            f"Dead zone {zone_label(z)}: "
            f"{worse_word(m)} than {z.baseline_label}: {m.label} {metric_change_pct(z.slowdown.value, m):+.1f}% "
            f"(simultaneous {100 * (1 - analysis.alpha):.0f}% bounds {ci.low:+.1f}% to {ci.high:+.1f}%), "
            f"max-T adjusted p = {z.slowdown.p_value:.3f}."
        )
    return out
