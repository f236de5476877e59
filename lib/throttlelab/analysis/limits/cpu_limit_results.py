"""Notebook 03's ``results.json``: the result classes and the function that builds them from the analysis.

:func:`cpu_limit_results` turns the groups of
:func:`throttlelab.analysis.limits.cpu_limits.analyse_cpu_limits` (and the optional
active-time fit) into one :class:`CpuLimitResults`; the notebook writes it with
:func:`throttlelab.report.notebook.write_results`.  Every number a headline of
notebook 03 states is a field with its interval: the dead zone
(:class:`~throttlelab.analysis.limits.dead_zone_results.DeadZone`), the recommendation
(:class:`~throttlelab.analysis.limits.recommend.Recommendation`) and the active-time
slowdown (:attr:`ActiveTimeResults.slowdown_factor`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

import polars as pl

from throttlelab.core.quantities import format_millicores
from throttlelab.analysis.limits.active_time import ActiveTimeFit, slowdown_table
from throttlelab.analysis.limits.cpu_limits import GroupAnalysis
from throttlelab.analysis.limits.dead_zone_results import DeadZoneAnalysis
from throttlelab.analysis.runs import GROUP_KEYS, PreparedRuns
from throttlelab.analysis.limits.recommend import Knee, Recommendation
from throttlelab.results import Estimate, Fit
from throttlelab.result_tables import Rows, table


@dataclass(frozen=True)
class LimitRow:
    """A row of a group's ``limits``: the runs at one CPU limit (``*_seconds``: the metric's cost).

    Attributes
    ----------
    limit, cpu_limit_cores
        The limit's label and cores (``null``: unlimited).
    runs
        Runs at this limit (outlying runs included).
    geomean_seconds, min_seconds, max_seconds
        Geometric mean, smallest and largest cost of the runs.
    reserved_core_seconds
        Limit x geometric-mean time: what a run reserves (``null`` for unlimited).
    """

    limit: str
    cpu_limit_cores: float
    runs: int
    geomean_seconds: float
    min_seconds: float
    max_seconds: float
    reserved_core_seconds: float


@dataclass(frozen=True)
class ActiveTimeRow:
    """A row of the active-time ``table``: one limit of the Go write-up, measured against the fit.

    Attributes
    ----------
    cpu_limit_cores, limit_share
        The limit in cores and as a share of one core.
    active_over_wall, observed_slowdown
        Measured CPU time / wall time and its inverse (wall / CPU).
    fitted_slowdown, fitted_slowdown_ci_low, fitted_slowdown_ci_high
        Wall / CPU time implied by the fit, with its interval.
    quota_only_slowdown
        ``1 / limit_share``: the slowdown if the quota were the only wait.
    """

    cpu_limit_cores: float
    limit_share: float
    active_over_wall: float
    observed_slowdown: float
    fitted_slowdown: float
    fitted_slowdown_ci_low: float
    fitted_slowdown_ci_high: float
    quota_only_slowdown: float


@dataclass(frozen=True)
class CpuLimitGroup:
    """Notebook 03's answer for one group of runs (workload, threads, contention).

    Attributes
    ----------
    group, label
        The group's key columns and its label.
    limits
        One row per limit: runs and the metric's cost.
    fits
        Scaling models (Amdahl, USL, quota), best AIC first; parameters with profile-likelihood intervals.
    fit_note
        Why a group was not fitted, or what the fits leave out.
    best_fit
        Model with the lowest AIC (``null`` when nothing was fitted).
    knee
        Smallest limit within the tolerance of the best value.
    dead_zones
        Dead-zone analysis pooled over experiments.
    dead_zones_with_block
        The same with ``experiment`` as a block effect (``null`` with one experiment).
    dead_zones_primary
        Which of the two the verdicts and the recommendation use.
    recommendation
        The recommended limit with its expected value, interval and how often simulated repeats recommend it.
    """

    group: dict[str, Any]
    label: str
    limits: Annotated[Any, Rows(LimitRow)]
    fits: tuple[Fit, ...]
    fit_note: str
    best_fit: str | None
    knee: Knee
    dead_zones: DeadZoneAnalysis
    dead_zones_with_block: DeadZoneAnalysis | None
    dead_zones_primary: Literal["dead_zones", "dead_zones_with_block"]
    recommendation: Recommendation


@dataclass(frozen=True)
class ActiveTimeResults:
    """The active-time fit of the Go write-up (CPU time / wall time against the limit share).

    Attributes
    ----------
    fit
        ``active_over_wall = slope x limit_share``: the slope with its interval, R² and residual SD.
    table
        Per limit: measured and fitted active share and the implied slowdown.
    smallest_limit_share
        The smallest limit measured, as a share of one core.
    slowdown_factor
        Wall time / CPU time implied by the fit at the smallest limit (the headline), with its interval.
    """

    fit: Fit
    table: Annotated[Any, Rows(ActiveTimeRow)]
    smallest_limit_share: float
    slowdown_factor: Estimate


@dataclass(frozen=True)
class CpuLimitResults:
    """``results.json`` of notebook 03 (CPU limits): scaling fits, dead zones and the recommended limit per group.

    Attributes
    ----------
    input
        Where the runs came from (``runs_path``).
    runs
        Runs analysed and excluded (by reason), the machine size and where unlimited runs sit.
    metric
        The response metric: ``name``, ``unit``, ``direction``.
    parameters
        The analysis' parameters, as its groups carry them (the metric, thresholds, alpha, the noise prior,
        resampling sizes, seed, the block column).
    groups
        One entry per group of runs.
    active_time
        The active-time section (``null`` when skipped).
    """

    input: dict[str, str]
    runs: dict[str, Any]
    metric: dict[str, str]
    parameters: dict[str, Any]
    groups: tuple[CpuLimitGroup, ...]
    active_time: ActiveTimeResults | None


def group_result(g: GroupAnalysis) -> CpuLimitGroup:
    """One group of :func:`~throttlelab.analysis.limits.cpu_limits.analyse_cpu_limits` as a :class:`CpuLimitGroup`."""
    block_primary = g.dead_zones_block is not None and g.primary_dead_zones is g.dead_zones_block
    return CpuLimitGroup(
        group={k: g.group.get(k) for k in GROUP_KEYS if k in g.group},
        label=g.label,
        limits=table(g.summary.rename({"limit_label": "limit"}).select(*LimitRow.__dataclass_fields__), LimitRow),
        fits=tuple(f.as_fit() for f in g.fits),
        fit_note=g.fit_note,
        best_fit=g.fits[0].model if g.fits else None,
        knee=g.knee,
        dead_zones=g.dead_zones,
        dead_zones_with_block=g.dead_zones_block,
        dead_zones_primary="dead_zones_with_block" if block_primary else "dead_zones",
        recommendation=g.recommendation,
    )


def active_time_results(data: pl.DataFrame, fit: ActiveTimeFit) -> ActiveTimeResults:
    """The active-time section from the Go table (``limit_share``, ``active_over_wall``) and its fit."""
    smallest = float(data["limit_share"].min())
    value, ci = fit.slowdown_factor(smallest)
    est = Estimate(value, ci.low, ci.high, fit.level, "1 / (slope x limit share), least squares through the origin",
                   None, None, "ratio", f"wall time / CPU time at {format_millicores(smallest)}")
    return ActiveTimeResults(fit=fit.as_fit(), table=table(slowdown_table(data, fit), ActiveTimeRow), smallest_limit_share=smallest,
                             slowdown_factor=est)


def cpu_limit_results(prepared: PreparedRuns, groups: list[GroupAnalysis], *, runs_path: str = "",
                      active_time: ActiveTimeResults | None = None) -> CpuLimitResults:
    """Notebook 03's :class:`CpuLimitResults` from the prepared runs and the analysed groups.

    Its ``parameters`` are those the groups were analysed with (:attr:`GroupAnalysis.parameters`); groups of
    analyses with different parameters raise ``ValueError``.

    Examples
    --------
    >>> from throttlelab.analysis.limits.cpu_limits import analyse_cpu_limits
    >>> from throttlelab.analysis.runs import prepare_runs
    >>> from throttlelab.ingest.published import load_ffmpeg_sweep
    >>> prepared = prepare_runs(load_ffmpeg_sweep())
    >>> r = cpu_limit_results(prepared, analyse_cpu_limits(prepared, n_boot=0, n_sim=2000))
    >>> r.groups[0].recommendation.limit_label, r.groups[0].dead_zones_primary
    ('12000m', 'dead_zones_with_block')
    >>> r.parameters["knee_tolerance_pct"], r.parameters["n_sim"]
    (10.0, 2000)
    """
    m = prepared.metric
    made_with = {repr(g.parameters) for g in groups}
    if len(made_with) > 1:
        raise ValueError(f"groups analysed with different parameters: {sorted(made_with)}")
    return CpuLimitResults(
        input={"runs_path": runs_path or "published:ffmpeg_cpu_limit_sweep.csv"},
        runs=prepared.summary(),
        metric={"name": m.name, "unit": m.unit, "direction": m.direction},
        parameters={"metric": m.name, **(groups[0].parameters if groups else {})},
        groups=tuple(group_result(g) for g in groups),
        active_time=active_time,
    )
