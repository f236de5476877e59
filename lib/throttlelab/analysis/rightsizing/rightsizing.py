"""Throttling-aware CPU right-sizing of running containers, beside KRR-style and VPA-style recommendations.

Demand
    Per step, ``usage + throttled seconds`` (cores): what the container would
    have used with no limit (a throttled thread waits for exactly the time the
    limit denied it), so a starved container is not sized by its capped usage.
Throttling model
    The predicted throttled-period ratio at a limit, from demand and the
    within-period burstiness ``sigma`` calibrated on the observed ratio
    (:mod:`throttlelab.analysis.rightsizing.throttle_model`).
Recommendation
    Request: p95 of demand.  Limit: the smallest (10m steps) whose predicted
    ratio is at most ``target``, never below the request.  Intervals: 90%
    moving-block bootstrap (blocks of one day, or a twelfth of shorter windows;
    200 resamples) over steps, re-calibrating ``sigma`` in each resample; the
    limit's is widened by the model error measured in simulation (``MODEL_ERROR``).
Censored demand
    Throttled in most periods (``CENSORED_RATIO``), usage sits at the limit and
    demand above it is not observed: the recommendation is an extrapolation
    (usage + throttled seconds through the burst model), so both intervals run
    from just above the current limit (all that was observed: demand exceeds
    it) to the node's size, or are open above where the node's size is unknown.
Node cap
    Nothing (point or interval) is recommended above the CPU count of the
    container's node (``ContainerCPU.node_cores``), and the reason says so.
    Windows shorter than ``min_history_s`` or with under half their steps
    present are "too little data".
KRR-style
    Request p95 of usage, no limit (KRR's ``simple`` strategy).
VPA-style
    Request p90 of usage weighted by a 24-h half-life decay + 15% margin; the
    limit keeps the current limit/request ratio (VPA's ``RequestsAndLimits``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from throttlelab.analysis.rightsizing.rightsizing_draws import limit_draws
from throttlelab.analysis.rightsizing.rightsizing_reasons import capping_note, limit_decision
from throttlelab.analysis.rightsizing.throttle_model import throttle_curve
from throttlelab.ingest.prometheus import ContainerCPU
from throttlelab.results import ConfidenceInterval

# Model error of the limit (recommended / true smallest limit), 5% and 95% quantiles over 50 generated containers
# (gamma bursts, not the model's log-normal; 72-h windows): 0.69 and 1.12.  Limit intervals are the bootstrap
# interval widened by these (tests/analysis/rightsizing/test_rightsizing_coverage.py re-checks coverage on fresh seeds).
MODEL_ERROR = (0.69, 1.12)
CENSORED_RATIO = 0.5  # throttled in more periods than this: demand above the limit is not observed
GRAIN = 0.01  # cores: 10m
DEFAULT_PERIOD_S = 0.1
#: The numbers a "too little data" record leaves empty.
_NUMBERS = ("recommended_request_cores", "recommended_request_low", "recommended_request_high",
            "recommended_limit_cores", "recommended_limit_low", "recommended_limit_high", "usage_p50_cores",
            "usage_p95_cores", "usage_p99_cores", "usage_max_cores", "demand_p95_cores", "throttled_ratio",
            "throttled_seconds_per_hour", "predicted_throttled_ratio", "burst_sigma", "krr_request_cores",
            "krr_limit_cores", "vpa_request_cores", "vpa_limit_cores")


@dataclass(frozen=True)
class Rightsizing:
    """One container's numbers, recommendation and reason.

    Attributes
    ----------
    namespace, pod, container
        Which container.
    decision
        ``raise limit``, ``lower limit``, ``keep``, ``set limit``, ``no limit (policy)``, ``keep (policy)`` or
        ``too little data``.
    current_request_cores, current_limit_cores
        What the container has now (``null``: none set).
    recommended_request_cores, recommended_request_low, recommended_request_high
        Recommended request with its 90% block-bootstrap interval.
    recommended_limit_cores, recommended_limit_low, recommended_limit_high
        Recommended limit (``null``: no limit) with its 90% block-bootstrap interval.
    usage_p50_cores, usage_p95_cores, usage_p99_cores, usage_max_cores
        Usage percentiles over the window (what KRR and VPA see).
    demand_p95_cores
        95th percentile of the estimated demand (usage with the throttled time put back).
    throttled_ratio, throttled_ratio_p95_5m, throttled_seconds_per_hour
        Share of CFS periods throttled (whole window, 95th percentile of 5-minute windows) and throttled time.
    predicted_throttled_ratio
        Throttled-period ratio predicted at the recommended limit.
    burst_sigma, burst_sigma_source
        Within-step burstiness of demand and where it came from.
    krr_request_cores, krr_limit_cores, vpa_request_cores, vpa_limit_cores
        What KRR's and VPA's rules would recommend from the same usage.
    hours_observed, steps, step_s
        Window length, samples and the step between them.
    node_cores
        CPU count of the container's node (``null``: unknown, recommendations uncapped); nothing recommended exceeds it.
    demand_censored
        Throttled in most periods: demand above the current limit was not observed, the recommendation is an
        extrapolation and its intervals run from the current limit to the node's size (``null`` high end: open).
    reason
        One sentence a reader can act on.
    """

    namespace: str
    pod: str
    container: str
    decision: str  # raise limit, lower limit, keep, set limit, no limit (policy), too little data
    current_request_cores: float | None
    current_limit_cores: float | None
    recommended_request_cores: float | None
    recommended_request_low: float | None
    recommended_request_high: float | None
    recommended_limit_cores: float | None  # None: no limit
    recommended_limit_low: float | None
    recommended_limit_high: float | None
    usage_p50_cores: float | None
    usage_p95_cores: float | None
    usage_p99_cores: float | None
    usage_max_cores: float | None
    demand_p95_cores: float | None
    throttled_ratio: float | None
    throttled_ratio_p95_5m: float | None
    throttled_seconds_per_hour: float | None
    predicted_throttled_ratio: float | None  # at the recommended limit
    burst_sigma: float | None
    burst_sigma_source: str
    krr_request_cores: float | None
    krr_limit_cores: float | None
    vpa_request_cores: float | None
    vpa_limit_cores: float | None
    hours_observed: float
    steps: int
    step_s: float
    node_cores: float | None
    demand_censored: bool
    reason: str

    def confidence_interval(self) -> ConfidenceInterval:
        """Interval of the recommended limit (90%, block bootstrap)."""
        return ConfidenceInterval(self.recommended_limit_low, self.recommended_limit_high)


@dataclass(frozen=True)
class Settings:
    """Knobs of :func:`rightsize` (defaults are the command's)."""

    throttle_target: float = 0.05
    limit_policy: str = "target"  # target | none | keep
    min_history_s: float = 86400.0
    min_coverage: float = 0.5
    resamples: int = 200
    level: float = 0.90
    seed: int = 0
    period_s: float = DEFAULT_PERIOD_S


def _ceil(x: float) -> float:
    """Cores rounded up to the 10m grain."""
    return round(math.ceil(round(x / GRAIN, 6)) * GRAIN, 4)


def _usage_baselines(u: np.ndarray, times: np.ndarray, c: ContainerCPU) -> tuple[float, float, float | None]:
    """KRR-style request, VPA-style request and limit from usage alone (see the module docstring)."""
    krr_req = _ceil(float(np.quantile(u, 0.95)))
    wts = 0.5 ** ((times[-1] - times) / 3600 / 24)
    order = np.argsort(u)
    cw = np.cumsum(wts[order])
    vpa_req = _ceil(max(0.025, float(u[order][np.searchsorted(cw, 0.9 * cw[-1])]) * 1.15))
    vpa_lim = _ceil(vpa_req * c.limit_cores / c.request_cores) if c.limit_cores is not None and c.request_cores else None
    return krr_req, vpa_req, vpa_lim


def _interval(draws: np.ndarray, level: float) -> tuple[float, float]:
    a = (1 - level) / 2
    return tuple(_ceil(float(np.quantile(draws[1:], q))) for q in (a, 1 - a))


def rightsize(c: ContainerCPU, settings: Settings = Settings()) -> Rightsizing:
    """Recommend a request and a limit for one container (see the module docstring)."""
    s = settings
    usage = c.usage
    have = np.isfinite(usage)
    steps = int(have.sum())
    span = (c.times[have][-1] - c.times[have][0] + c.step_s) if steps else 0.0
    hours = span / 3600
    idx = np.flatnonzero(have)
    coverage = steps / (idx[-1] - idx[0] + 1) if steps else 0.0  # within the container's own lifetime in the window
    common = dict(namespace=c.namespace, pod=c.pod, container=c.container, current_request_cores=c.request_cores,
                  current_limit_cores=c.limit_cores, hours_observed=hours, steps=steps, step_s=c.step_s,
                  throttled_ratio_p95_5m=c.throttled_ratio_p95_5m, node_cores=getattr(c, "node_cores", None))
    if span < s.min_history_s or coverage < s.min_coverage or steps < 12:
        need = max(0.0, s.min_history_s - span) / 3600
        why = (f"only {hours:.1f} h of usage ({steps} steps of {c.step_s:g} s); too short to decide: "
               f"about {need:.0f} h more would decide" if span < s.min_history_s else
               f"usage present in {coverage:.0%} of the steps between its first and last sample (needs {s.min_coverage:.0%}); "
               f"too sparse to decide")
        return Rightsizing(**common, **dict.fromkeys(_NUMBERS), burst_sigma_source="none", decision="too little data",
                           demand_censored=False, reason=why)

    u = np.where(have, usage, 0.0)[have]
    ts = np.nan_to_num(c.throttled_seconds[have])
    demand = u + ts
    times = c.times[have]
    limited = c.limit_cores is not None and np.isfinite(c.periods[have]).any()
    per = np.nan_to_num(c.periods[have])
    thr = np.nan_to_num(c.throttled_periods[have])
    active = np.clip(per * s.period_s, 1e-3, 1.0) if limited else np.ones_like(demand)
    mean_active = np.maximum(demand / active, 1e-6)
    total_periods = float(per.sum() * c.step_s)
    total_thr = float(thr.sum() * c.step_s)
    ratio = total_thr / total_periods if limited and total_periods > 0 else (0.0 if c.limit_cores is None else None)
    thr_s_h = float(ts.sum() * c.step_s / span * 3600)
    d = limit_draws(demand, mean_active, active, times, per, thr, span=span, step_s=c.step_s, limit_cores=c.limit_cores,
                    limited=limited, target=s.throttle_target, resamples=s.resamples, seed=s.seed)
    point_req = float(np.quantile(demand, 0.95))
    rec_req = _ceil(point_req)
    rec_lim = max(_ceil(float(d.limit[0])), rec_req)
    req_lo, req_hi = _interval(d.request, s.level)
    lim_lo, lim_hi = _interval(d.limit, s.level)
    if limited:  # widen for the model's own error (no-limit intervals already spread the unobserved burstiness)
        lim_lo, lim_hi = _ceil(lim_lo / MODEL_ERROR[1]), _ceil(lim_hi / MODEL_ERROR[0])
    lim_lo, lim_hi = min(lim_lo, rec_lim), max(lim_hi, rec_lim)
    req_lo, req_hi = min(req_lo, rec_req), max(req_hi, rec_req)
    cur = c.limit_cores
    node = common["node_cores"]
    censored = bool(limited and ratio is not None and ratio > CENSORED_RATIO)
    if censored:  # demand >= the limit is all that was observed; above it the numbers are extrapolated
        # the low end is what was observed (demand above the limit), not the bootstrap's: that one trusts the
        # throttled seconds, which on a real node varied 6x between runs of one container (wip-s3-node.md)
        lim_lo = req_lo = round(_ceil(cur) + GRAIN, 4)
        rec_lim, rec_req = max(rec_lim, lim_lo), max(rec_req, req_lo)
        lim_hi = req_hi = None
    model_lim = rec_lim
    if node:  # nothing above what the node can give
        cap = round(math.floor(round(node / GRAIN, 6)) * GRAIN, 4)
        rec_lim, rec_req = min(rec_lim, cap), min(rec_req, cap)
        lim_lo, req_lo = min(lim_lo, cap), min(req_lo, cap)
        lim_hi = cap if lim_hi is None else min(lim_hi, cap)
        req_hi = cap if req_hi is None else min(req_hi, cap)
    sigma = float(d.sigma[0])
    predicted = float(throttle_curve(mean_active, active, np.array([rec_lim]), sigma)[0])
    at_current = (float(throttle_curve(mean_active, active, np.array([cur]), sigma)[0])
                  if s.limit_policy == "keep" and cur is not None else None)
    usage_p95 = float(np.quantile(u, 0.95))
    out = limit_decision(s.limit_policy, s.throttle_target, current=cur, ratio=ratio, throttled_s_per_h=thr_s_h,
                         usage_p95=usage_p95, demand_p95=point_req, request=(rec_req, req_lo, req_hi),
                         limit=(rec_lim, lim_lo, lim_hi), predicted=predicted, predicted_at_current=at_current)
    reason = out.reason + capping_note(censored=censored, current=cur, model_limit=model_lim, capped_limit=rec_lim,
                                       node=node)
    krr_req, vpa_req, vpa_lim = _usage_baselines(u, times, c)
    return Rightsizing(
        **common, decision=out.decision,
        recommended_request_cores=rec_req, recommended_request_low=req_lo, recommended_request_high=req_hi,
        recommended_limit_cores=out.limit, recommended_limit_low=out.low, recommended_limit_high=out.high,
        usage_p50_cores=float(np.quantile(u, 0.5)), usage_p95_cores=usage_p95, usage_p99_cores=float(np.quantile(u, 0.99)),
        usage_max_cores=float(u.max()), demand_p95_cores=point_req, throttled_ratio=ratio,
        throttled_seconds_per_hour=thr_s_h if limited else None, predicted_throttled_ratio=out.predicted,
        burst_sigma=sigma, burst_sigma_source=d.sigma_source, krr_request_cores=krr_req, krr_limit_cores=None,
        vpa_request_cores=vpa_req, vpa_limit_cores=vpa_lim, demand_censored=censored, reason=reason,
    )


def rightsize_all(containers, settings: Settings = Settings()) -> list[Rightsizing]:
    """:func:`rightsize` for each container, in order."""
    return [rightsize(c, settings) for c in containers]
