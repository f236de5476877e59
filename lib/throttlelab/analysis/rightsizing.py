"""Throttling-aware CPU right-sizing of running containers, beside KRR-style and VPA-style recommendations.

Demand
    Per step, ``usage + throttled seconds`` (cores): what the container would
    have used with no limit (a throttled thread waits for exactly the time the
    limit denied it), so a starved container is not sized by its capped usage.
Throttling model
    The predicted throttled-period ratio at a limit, from demand and the
    within-period burstiness ``sigma`` calibrated on the observed ratio
    (:mod:`throttlelab.analysis.throttle_model`).
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

from throttlelab.analysis.throttle_model import SIGMA_PRIOR, SIGMAS, calibrate_sigma, norm_sf, throttle_curve
from throttlelab.ingest.container_cpu import ContainerCPU
from throttlelab.results import ConfidenceInterval

# Model error of the limit (recommended / true smallest limit), 5% and 95% quantiles over 50 generated containers
# (gamma bursts, not the model's log-normal; 72-h windows): 0.69 and 1.12.  Limit intervals are the bootstrap
# interval widened by these (tests/analysis/test_rightsizing_coverage.py re-checks coverage on fresh seeds).
MODEL_ERROR = (0.69, 1.12)
CENSORED_RATIO = 0.5  # throttled in more periods than this: demand above the limit is not observed
SIGMA_NO_LIMIT = 0.8  # no CFS counters: neither bursts nor the running share are seen
GRAIN = 0.01  # cores: 10m
STEP_LOG = math.log(1.03)  # demand bins and candidate limits 3% apart
DEFAULT_PERIOD_S = 0.1


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


def _hist(values: np.ndarray, weights: np.ndarray, edges: np.ndarray, blocks: np.ndarray, nblocks: int) -> np.ndarray:
    """Weighted histogram per block: (nblocks, nbins)."""
    nb = len(edges) - 1
    b = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, nb - 1)
    return np.bincount(blocks * nb + b, weights, nblocks * nb).reshape(nblocks, nb)


def _wquantile(counts: np.ndarray, centers: np.ndarray, q: float) -> np.ndarray:
    """Quantile of binned weights; counts (..., nbins)."""
    c = np.cumsum(counts, axis=-1)
    tot = c[..., -1:]
    idx = np.argmax(c >= q * tot, axis=-1)
    return centers[idx]


def _ceil(x: float) -> float:
    return round(math.ceil(round(x / GRAIN, 6)) * GRAIN, 4)


def _fmt(c: float | None) -> str:
    """Cores the way Kubernetes users write them: 450m, 1.25 cores."""
    if c is None:
        return "no limit"
    return f"{c * 1000:.0f}m" if c < 1 else f"{c:.2f} cores"


def _range(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is None:
        return f"at least {_fmt(lo)}, open above"
    if lo is None or hi is None:
        return "no interval"
    if lo >= 1 and hi >= 1:
        return f"{lo:.2f}-{hi:.2f} cores"
    return f"{_fmt(lo)}-{_fmt(hi)}"


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
    none = dict.fromkeys(["recommended_request_cores", "recommended_request_low", "recommended_request_high",
                          "recommended_limit_cores", "recommended_limit_low", "recommended_limit_high",
                          "usage_p50_cores", "usage_p95_cores", "usage_p99_cores", "usage_max_cores", "demand_p95_cores",
                          "throttled_ratio", "throttled_seconds_per_hour", "predicted_throttled_ratio", "burst_sigma",
                          "krr_request_cores", "krr_limit_cores", "vpa_request_cores", "vpa_limit_cores"])
    if span < s.min_history_s or coverage < s.min_coverage or steps < 12:
        need = max(0.0, s.min_history_s - span) / 3600
        why = (f"only {hours:.1f} h of usage ({steps} steps of {c.step_s:g} s); too short to decide: "
               f"about {need:.0f} h more would decide" if span < s.min_history_s else
               f"usage present in {coverage:.0%} of the steps between its first and last sample (needs {s.min_coverage:.0%}); "
               f"too sparse to decide")
        return Rightsizing(**common, **none, burst_sigma_source="none", decision="too little data",
                           demand_censored=False, reason=why)

    u = np.where(have, usage, 0.0)[have]
    ts = np.nan_to_num(c.throttled_seconds[have])
    demand = u + ts
    times = c.times[have]
    limited = c.limit_cores is not None and np.isfinite(c.periods[have]).any()
    per = np.nan_to_num(c.periods[have])
    thr = np.nan_to_num(c.throttled_periods[have])
    if limited:
        active = np.clip(per * s.period_s, 1e-3, 1.0)
    else:
        active = np.ones_like(demand)
    mean_active = np.maximum(demand / active, 1e-6)
    total_periods = float(per.sum() * c.step_s)
    total_thr = float(thr.sum() * c.step_s)
    ratio = total_thr / total_periods if limited and total_periods > 0 else (0.0 if c.limit_cores is None else None)
    thr_s_h = float(ts.sum() * c.step_s / span * 3600)

    # blocks for the bootstrap: days, or a twelfth of a shorter window
    block_s = 86400.0 if span >= 7 * 86400 else span / 12
    blocks = ((times - times[0]) // block_s).astype(np.int64)
    nblk = int(blocks.max()) + 1
    # one log lattice (3% steps) for the demand bins and the candidate limits: P(throttled) depends on their ratio only
    top = max(float(mean_active.max()), float(demand.max()), 1e-3) * 1.0001
    hi_lim = max(top * 4, (c.limit_cores or 0) * 1.5, 0.05)
    lo = max(min(float(mean_active.min()), float(demand.min())), top / 3e3, 1e-4)
    n_lat = int(math.ceil(math.log(hi_lim / lo) / STEP_LOG)) + 1
    lattice = lo * np.exp(STEP_LOG * np.arange(n_lat))
    n_bins = int(np.searchsorted(lattice, top)) + 1
    centers = lattice[:n_bins]
    edges = np.concatenate([[0.0], centers * math.exp(STEP_LOG / 2)])
    edges[-1] = max(edges[-1], top * 1.001)
    h_active = _hist(mean_active, active, edges, blocks, nblk)  # weights: running share
    h_demand = _hist(demand, np.ones_like(demand), edges, blocks, nblk)
    blk_per = np.bincount(blocks, per, nblk)
    blk_thr = np.bincount(blocks, thr, nblk)
    rng = np.random.default_rng(s.seed)
    W = np.vstack([np.ones(nblk), rng.multinomial(nblk, np.full(nblk, 1 / nblk), size=s.resamples)]).astype(float)
    ha = W @ h_active  # (R+1, bins); row 0 is the observed data
    hd = W @ h_demand
    req = _wquantile(hd, centers, 0.95)

    # sigma per resample
    if limited and total_periods > 0:
        L0 = c.limit_cores
        k = (np.log(L0 / np.maximum(centers, 1e-9))[:, None] + SIGMAS[None, :] ** 2 / 2) / SIGMAS[None, :]
        pb = norm_sf(k)  # (bins, sigmas)
        curve = (ha @ pb) / np.maximum(ha.sum(1, keepdims=True), 1e-12)  # (R+1, sigmas)
        rp, rt = W @ blk_per, W @ blk_thr
        informative = rt * c.step_s >= 10
        observed = np.where(informative, rt / np.maximum(rp, 1e-12), (rt * c.step_s + 3) / np.maximum(rp * c.step_s, 1))
        sig = calibrate_sigma(curve, observed, informative)
        source = "calibrated at the current limit" if informative[0] else "prior, bounded by no throttling seen"
    else:
        sig = np.full(len(W), SIGMA_NO_LIMIT)
        sig[1:] = np.exp(rng.uniform(np.log(0.4), np.log(1.6), s.resamples))  # unobserved: spread the prior
        source = "assumed (no CFS counters: no limit)"

    # limits per resample on the lattice (Toeplitz: ratio index g - b), interpolated to the target
    grid = lattice
    offsets = np.arange(-(n_bins - 1), n_lat) * STEP_LOG  # log(limit / centre) for g - b
    gather = np.arange(n_lat)[None, :] - np.arange(n_bins)[:, None] + (n_bins - 1)
    pred = np.empty((len(W), n_lat))
    for sg in np.unique(sig):
        rows = np.flatnonzero(sig == sg)
        pg = norm_sf((offsets + sg**2 / 2) / sg)[gather]
        pred[rows] = (ha[rows] @ pg) / np.maximum(ha[rows].sum(1, keepdims=True), 1e-12)
    ok = pred <= s.throttle_target
    first = np.argmax(ok, 1)
    prev = np.maximum(first - 1, 0)
    rows = np.arange(len(W))
    y0, y1 = pred[rows, prev], pred[rows, first]  # ratio falls from y0 (> target) to y1 (<= target)
    frac = np.clip((y0 - s.throttle_target) / np.maximum(y0 - y1, 1e-12), 0, 1)
    lim_r = np.exp(np.log(grid[prev]) + frac * STEP_LOG)
    lim_r = np.where(ok.any(1), np.where(first > 0, lim_r, grid[0]), hi_lim)
    lim_r = np.maximum(lim_r, req)
    point_lim = float(lim_r[0])
    point_req = float(np.quantile(demand, 0.95))
    rec_req = _ceil(point_req)
    rec_lim = max(_ceil(point_lim), rec_req)
    a = (1 - s.level) / 2
    req_lo, req_hi = (_ceil(float(np.quantile(req[1:], q))) for q in (a, 1 - a))
    lim_lo, lim_hi = (_ceil(float(np.quantile(lim_r[1:], q))) for q in (a, 1 - a))
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
    predicted = float(throttle_curve(mean_active, active, np.array([rec_lim]), float(sig[0]))[0])
    if censored:
        note = (f" Demand above the current {_fmt(cur)} limit was not observed (usage is censored there): "
                f"{_fmt(model_lim)} is extrapolated from usage plus throttled seconds through the burst model, so the "
                f"interval runs from just above the current limit to "
                + (f"the node's {node:g} cores" if node else "an open upper end") + ".")
    else:
        note = ""
    if node and model_lim > rec_lim:
        note += f" Capped at the node's {node:g} cores."
    elif not node and (censored or cur is None):
        note += " The node's size is unknown: the extrapolation is uncapped."

    # KRR-style and VPA-style
    krr_req = _ceil(float(np.quantile(u, 0.95)))
    age_h = (times[-1] - times) / 3600
    wts = 0.5 ** (age_h / 24)
    order = np.argsort(u)
    cw = np.cumsum(wts[order])
    vpa_req = _ceil(max(0.025, float(u[order][np.searchsorted(cw, 0.9 * cw[-1])]) * 1.15))
    vpa_lim = None
    if c.limit_cores is not None and c.request_cores:
        vpa_lim = _ceil(vpa_req * c.limit_cores / c.request_cores)

    usage_p95 = float(np.quantile(u, 0.95))
    if s.limit_policy == "none":
        decision = "no limit (policy)"
        out_lim, out_lo, out_hi, predicted_out = None, None, None, None
        reason = (f"Requests-only policy: request {_fmt(rec_req)} (p95 of demand, {_range(req_lo, req_hi)}), no limit"
                  + (f"; it is throttled in {ratio:.0%} of periods at its current {_fmt(cur)} limit." if ratio else "."))
    else:
        out_lim, out_lo, out_hi, predicted_out = rec_lim, lim_lo, lim_hi, predicted
        if s.limit_policy == "keep" and cur is not None:
            out_lim = cur
            predicted_out = float(throttle_curve(mean_active, active, np.array([cur]), float(sig[0]))[0])
        if cur is None:
            decision = "set limit"
            reason = (f"No limit now; {_fmt(rec_lim)} ({_range(lim_lo, lim_hi)}) would keep the predicted throttled "
                      f"ratio at {predicted:.1%} (target {s.throttle_target:.0%}), assuming bursts like typical containers "
                      f"(unmeasured without a limit); usage p95 {_fmt(usage_p95)}.")
        elif lim_lo > cur * 1.1 or (lim_lo > cur and ratio is not None and ratio > s.throttle_target):
            decision = "raise limit"
            reason = (f"Throttled in {ratio:.0%} of CFS periods at {_fmt(cur)} ({thr_s_h:,.0f} throttled s/h) although usage "
                      f"p95 is {_fmt(usage_p95)}: raise the limit to {_fmt(rec_lim)} ({_range(lim_lo, lim_hi)}) to bring "
                      f"the predicted ratio to {predicted:.1%} (target {s.throttle_target:.0%}).")
        elif lim_hi is not None and lim_hi < cur * 0.9:
            decision = "lower limit"
            reason = (f"Throttled in {ratio:.1%} of periods at {_fmt(cur)} with demand p95 {_fmt(point_req)}: "
                      f"{_fmt(rec_lim)} ({_range(lim_lo, lim_hi)}) keeps the predicted ratio at {predicted:.1%} "
                      f"(target {s.throttle_target:.0%}).")
        else:
            decision = "keep"
            reason = (f"Throttled in {ratio:.1%} of periods at {_fmt(cur)}; the smallest limit meeting the "
                      f"{s.throttle_target:.0%} target, {_fmt(rec_lim)} ({_range(lim_lo, lim_hi)}), is not "
                      f"clearly different: keep it.")
        if s.limit_policy == "keep":
            decision = "keep (policy)" if cur is not None else decision
    reason += note
    return Rightsizing(
        **common, decision=decision,
        recommended_request_cores=rec_req, recommended_request_low=req_lo, recommended_request_high=req_hi,
        recommended_limit_cores=out_lim, recommended_limit_low=out_lo, recommended_limit_high=out_hi,
        usage_p50_cores=float(np.quantile(u, 0.5)), usage_p95_cores=usage_p95, usage_p99_cores=float(np.quantile(u, 0.99)),
        usage_max_cores=float(u.max()), demand_p95_cores=point_req, throttled_ratio=ratio,
        throttled_seconds_per_hour=thr_s_h if limited else None, predicted_throttled_ratio=predicted_out,
        burst_sigma=float(sig[0]), burst_sigma_source=source, krr_request_cores=krr_req, krr_limit_cores=None,
        vpa_request_cores=vpa_req, vpa_limit_cores=vpa_lim, demand_censored=censored, reason=reason,
    )


def rightsize_all(containers, settings: Settings = Settings()) -> list[Rightsizing]:
    """:func:`rightsize` for each container, in order."""
    return [rightsize(c, settings) for c in containers]
