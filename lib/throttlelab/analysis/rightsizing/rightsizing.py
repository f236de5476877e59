"""Throttling-aware CPU right-sizing of workload containers, beside KRR-style and VPA-style recommendations.

Limit
    From the kernel's own counters, with the rules its ladders support
    (:mod:`~throttlelab.analysis.rightsizing.kernel_limits`): where the window
    holds two limits throttled measurably, the power of the limit by which the
    ratio falls through both (the closed loop); with one, that power read from
    how the container throttles (its bursts' body, or rare spikes:
    :mod:`~throttlelab.analysis.rightsizing.kernel_tail`); censored (throttled in
    most periods), a first round that makes the demand observable; quiet, a
    multiple of the demand while running; no limit, a multiple of the usage's
    p95.  ``limit_basis`` says which, ``tail_exponent`` the power.
Demand and request
    Per step, ``usage + throttled seconds`` (cores).  Throttled seconds count
    the container's runqueues' waiting until the period ends, an upper bound on
    the CPU it lacked where a thread needed less (on the node, a thread busy 25
    ms of every 100 ms under 100m showed 0.45 core of it against a true limit of
    0.30), so the request, p95 of demand, is never above the limit.  Where
    ``container_cpu_cfs_throttled_seconds_total`` is missing, the throttled
    seconds are estimated from the throttled periods alone
    (:func:`~throttlelab.analysis.rightsizing.throttle_model.throttled_seconds_from_periods`).
Workload containers
    One recommendation per container of a workload (Deployment, StatefulSet,
    DaemonSet, CronJob, ...): the (pod, step) samples of every pod that ran it in
    the window are pooled (:class:`~throttlelab.ingest.prometheus.workload_cpu.WorkloadCPU`).
    The current request and limit are the latest pod template's; each limit
    segment (pods with another limit, or a patch applied within the window) is
    read against its own limit.  ``min_history_s`` counts pod-hours summed over
    the pods.
Intervals
    90% block bootstrap over (pod, day) cells (a pod's twelfth of windows under a
    week; 200 resamples), the rule re-applied in each resample, widened by the
    rule's error on the kernel ladders (``kernel_limits.MODEL_ERROR``).  Censored
    and no-limit ones are plausible ranges: from just above the current limit to
    the node's size, or the no-limit rule's spread.
Censored demand
    Throttled in most periods (``CENSORED_RATIO``): demand above the limit is
    not observed, so one round cannot be tight; the reason says to apply the
    first round and run again over a window under it.
Node cap
    Nothing (point or interval) is recommended above the CPU count of the
    largest node its pods ran on (``WorkloadCPU.node_cores``), and the reason
    says so.  Fewer pod-hours than ``min_history_s``, or under half the steps
    of its pods' lifetimes present, are "too little data".
KRR-style
    Request p95 of usage, no limit (KRR's ``simple`` strategy).
VPA-style
    Request p90 of usage weighted by a 24-h half-life decay + 15% margin; the
    limit keeps the current limit/request ratio (VPA's ``RequestsAndLimits``).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from throttlelab.analysis.rightsizing.rightsizing_draws import cells, limit_draws
from throttlelab.analysis.rightsizing.kernel_limits import kernel_limit
from throttlelab.analysis.rightsizing.rightsizing_reasons import basis_note, capping_note, limit_decision, patch_note
from throttlelab.analysis.rightsizing.recommendation import NUMBERS, Rightsizing, Settings
from throttlelab.analysis.rightsizing.throttle_model import throttled_seconds_from_periods
from throttlelab.ingest.prometheus import ContainerCPU
from throttlelab.ingest.prometheus import WorkloadCPU, single

GRAIN = 0.01  # cores: 10m


def _ceil(x: float) -> float:
    """Cores rounded up to the 10m grain."""
    return round(math.ceil(round(x / GRAIN, 6)) * GRAIN, 4)


def _floor(x: float) -> float:
    """Cores rounded down to the 10m grain (an interval's low end: rounded outward, it keeps its coverage)."""
    return round(math.floor(round(x / GRAIN, 6)) * GRAIN, 4)


def _usage_baselines(u: np.ndarray, times: np.ndarray, c: WorkloadCPU, u95: float) -> tuple[float, float, float | None]:
    """KRR-style request, VPA-style request and limit from usage alone (see the module docstring); ``u95`` is the
    usage's 95th percentile."""
    krr_req = _ceil(u95)
    wts = 0.5 ** ((times.max() - times) / 3600 / 24)
    order = np.argsort(u)
    cw = np.cumsum(wts[order])
    vpa_req = _ceil(max(0.025, float(u[order][np.searchsorted(cw, 0.9 * cw[-1])]) * 1.15))
    vpa_lim = _ceil(vpa_req * c.limit_cores / c.request_cores) if c.limit_cores is not None and c.request_cores else None
    return krr_req, vpa_req, vpa_lim


def _interval(draws: np.ndarray, level: float) -> tuple[float, float]:
    a = (1 - level) / 2
    lo, hi = np.quantile(draws[1:], [a, 1 - a])  # one partition for both ends
    return _floor(float(lo)), _ceil(float(hi))


def rightsize(w: WorkloadCPU | ContainerCPU, settings: Settings = Settings()) -> Rightsizing:
    """Recommend a request and a limit for one workload container (a lone pod's container: a bare ``Pod``)."""
    s = settings
    if isinstance(w, ContainerCPU):
        w = single(w)
    p = w.pooled()
    step_s = w.step_s
    steps = len(p.usage)
    span = float(p.times.max() - p.times.min() + step_s) if steps else 0.0
    hours = span / 3600
    pod_s = float(p.lifetime_s.sum())
    coverage = steps * step_s / pod_s if steps else 0.0  # within each pod's own lifetime in the window
    npods = int((p.lifetime_s > 0).sum())
    common = dict(namespace=w.namespace, workload_kind=w.workload_kind, workload=w.workload, container=w.container,
                  pod=w.pod, pods=npods, pod_hours=pod_s / 3600, current_request_cores=w.request_cores,
                  current_limit_cores=w.limit_cores, hours_observed=hours, steps=steps, step_s=step_s,
                  throttled_ratio_p95_5m=w.throttled_ratio_p95_5m, node_cores=w.node_cores)
    if pod_s < s.min_history_s or coverage < s.min_coverage or steps < 12:
        need = max(0.0, s.min_history_s - pod_s) / 3600
        pods = f"{npods} pods" if npods != 1 else "1 pod"
        why = (f"only {pod_s / 3600:.1f} pod-hours of usage ({pods}, {steps} steps of {step_s:g} s); too short to "
               f"decide: about {need:.0f} pod-hours more would decide" if pod_s < s.min_history_s else
               f"usage present in {coverage:.0%} of the steps between its pods' first and last samples "
               f"(needs {s.min_coverage:.0%}); too sparse to decide")
        return Rightsizing(**common, **dict.fromkeys(NUMBERS), limit_basis="none", decision="too little data",
                           demand_censored=False, reason=why)

    u = p.usage
    u50, usage_p95, u99 = (float(v) for v in np.quantile(u, [0.5, 0.95, 0.99]))  # one partition for the three
    times = p.times
    limits = p.limits
    per = np.nan_to_num(p.periods)
    thr = np.nan_to_num(p.throttled_periods)
    has_periods = np.isfinite(p.periods) & np.isfinite(limits)
    limited = bool(has_periods.any())
    active = np.where(has_periods, np.clip(per * s.period_s, 1e-3, 1.0), 1.0)
    periods_only = limited and not np.isfinite(p.throttled_seconds[has_periods]).any()
    if periods_only:  # container_cpu_cfs_throttled_seconds_total missing: unserved demand from throttled periods
        ts, _ = throttled_seconds_from_periods(u, active, np.where(has_periods, limits, np.nan), per, thr, step_s,
                                               cap_cores=w.node_cores)
    else:
        ts = np.nan_to_num(p.throttled_seconds)
    demand = u + ts
    mean_active = np.maximum(demand / active, 1e-6)
    cur = w.limit_cores
    at_cur = has_periods & (limits == cur) if cur is not None else np.zeros(steps, bool)
    seg = at_cur if (per[at_cur].sum() > 0) else has_periods  # the ratio at the current limit, where pods had it
    total_periods = float(per[seg].sum() * step_s)
    total_thr = float(thr[seg].sum() * step_s)
    ratio = total_thr / total_periods if limited and total_periods > 0 else (0.0 if cur is None else None)
    thr_s_h = float(ts.sum() * step_s / pod_s * 3600)
    d = limit_draws(demand, mean_active, active, cells(p.member, times, span), per, thr, step_s=step_s,
                    limits=np.where(has_periods, limits, np.nan), limited=limited, target=s.throttle_target,
                    resamples=s.resamples, seed=s.seed)
    cell = cells(p.member, times, span)
    nblk = int(cell.max()) + 1
    rng = np.random.default_rng(s.seed)
    W = np.vstack([np.ones(nblk), rng.multinomial(nblk, np.full(nblk, 1 / nblk), size=s.resamples)]).astype(float)
    k = kernel_limit(u, np.nan_to_num(ts), np.where(has_periods, per, np.nan), thr,
                     np.where(has_periods, limits, np.nan), cell, W, period_s=s.period_s, target=s.throttle_target,
                     censored_ratio=s.censored_ratio, step_s=step_s, current=cur)
    rec_lim = _ceil(k.limit)
    lo, hi = k.interval(s.level)
    lim_lo, lim_hi = _floor(lo), _ceil(hi)
    if k.misses_target and cur is not None:  # the ratio never rises with the limit: the target lies above this one
        lim_lo = max(lim_lo, round(_ceil(cur) + GRAIN, 4))
        rec_lim, lim_hi = max(rec_lim, lim_lo), max(lim_hi, lim_lo)
    point_req = float(np.quantile(demand, 0.95))
    rec_req = min(_ceil(point_req), rec_lim)  # a request is never above the limit
    req_lo, req_hi = _interval(d.request, s.level)
    req_lo, req_hi = min(req_lo, rec_req), min(max(req_hi, rec_req), max(rec_lim, lim_hi))
    node = common["node_cores"]
    censored = bool(limited and ratio is not None and ratio > s.censored_ratio)
    if censored:  # throttled in most periods: the first round aims where the next window observes the demand
        lim_lo = round(_ceil(cur) + GRAIN, 4)
        req_lo = min(_ceil(usage_p95), rec_req)
        rec_lim = max(rec_lim, lim_lo)
        lim_hi = req_hi = None
    model_lim = rec_lim
    if node:  # nothing above what the node can give
        cap = round(math.floor(round(node / GRAIN, 6)) * GRAIN, 4)
        rec_lim, rec_req = min(rec_lim, cap), min(rec_req, cap)
        lim_lo, req_lo = min(lim_lo, cap), min(req_lo, cap)
        lim_hi = cap if lim_hi is None else min(lim_hi, cap)
        req_hi = cap if req_hi is None else min(req_hi, cap)
    predicted = k.predicted(rec_lim)
    at_current = None
    if s.limit_policy == "keep" and cur is not None:  # along the tail read, else the ratio seen at the current limit
        at_current = k.predicted(cur) if k.predicted(cur) is not None else ratio
    out = limit_decision(s.limit_policy, s.throttle_target, current=cur, ratio=ratio, throttled_s_per_h=thr_s_h,
                         usage_p95=usage_p95, demand_p95=point_req, request=(rec_req, req_lo, req_hi),
                         limit=(rec_lim, lim_lo, lim_hi), predicted=predicted, predicted_at_current=at_current)
    if out.decision == "keep (policy)" and rec_req > cur:  # a request above the kept limit would be refused
        rec_req, req_lo, req_hi = cur, min(req_lo, cur), min(req_hi, cur) if req_hi is not None else cur
        out = dataclasses.replace(out, reason=out.reason + f" The request is held at the kept limit, {cur:g} cores.")
    reason = (out.reason + (basis_note(k, target=s.throttle_target) if out.limit is not None else "")
              + capping_note(censored=censored, current=cur, model_limit=model_lim, capped_limit=rec_lim, node=node)
              + patch_note(w.workload_kind))
    krr_req, vpa_req, vpa_lim = _usage_baselines(u, times, w, usage_p95)
    return Rightsizing(
        **common, decision=out.decision,
        recommended_request_cores=rec_req, recommended_request_low=req_lo, recommended_request_high=req_hi,
        recommended_limit_cores=out.limit, recommended_limit_low=out.low, recommended_limit_high=out.high,
        usage_p50_cores=u50, usage_p95_cores=usage_p95, usage_p99_cores=u99,
        usage_max_cores=float(u.max()), demand_p95_cores=point_req, throttled_ratio=ratio,
        throttled_seconds_per_hour=thr_s_h if limited else None, predicted_throttled_ratio=out.predicted,
        tail_exponent=k.alpha, limit_basis=k.how + ("; unserved demand from throttled periods alone (no throttled "
                                                    "seconds)" if periods_only else ""),
        krr_request_cores=krr_req, krr_limit_cores=None,
        vpa_request_cores=vpa_req, vpa_limit_cores=vpa_lim, demand_censored=censored, reason=reason,
    )
