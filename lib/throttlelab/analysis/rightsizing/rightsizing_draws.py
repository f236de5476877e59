"""Bootstrap draws of a container's request and limit, with the burstiness calibrated per draw on its throttling."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from throttlelab.analysis.rightsizing.throttle_model import (CV_PRIOR, CV_PRIOR_RANGE, CVS, SIGMAS, calibrate_sigma,
                                                             gamma_sf, norm_sf)

SIGMA_NO_LIMIT = 0.8  # no CFS counters: neither bursts nor the running share are seen
STEP_LOG = math.log(1.03)  # demand bins and candidate limits 3% apart
FAR_TAIL = 0.1  # an observed ratio under this share of the target is far in the tail: the gamma cross-check applies


@dataclass(frozen=True)
class LimitDraws:
    """Row 0 is the observed data, rows 1.. the moving-block bootstrap resamples.

    Attributes
    ----------
    request
        95th percentile of demand (cores, on the 3% lattice) per draw.
    limit
        Smallest limit whose predicted throttled-period ratio is at most the target, never below
        ``request`` (interpolated between lattice points) per draw.
    sigma, sigma_source
        Within-step burstiness per draw and where it came from.
    cv
        Per draw, the gamma burst factor's coefficient of variation where the throttling seen was far in the tail
        and the gamma cross-check gave the larger limit (NaN elsewhere: the log-normal's limit stands).
    """

    request: np.ndarray
    limit: np.ndarray
    sigma: np.ndarray
    sigma_source: str
    cv: np.ndarray | None = None


def cells(member: np.ndarray, times: np.ndarray, span: float) -> np.ndarray:
    """The resampling unit of each sample, numbered ``0..n-1``: its pod's day, or its pod's twelfth of a window
    shorter than a week (one pod: the day blocks alone).

    >>> cells(np.array([0, 0, 1, 1]), np.array([0.0, 90000.0, 0.0, 90000.0]), 8 * 86400.0).tolist()
    [0, 1, 2, 3]
    """
    block_s = 86400.0 if span >= 7 * 86400 else span / 12
    blocks = ((times - times.min()) // block_s).astype(np.int64)
    return np.unique(member.astype(np.int64) * (int(blocks.max()) + 1) + blocks, return_inverse=True)[1].ravel()


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


def limit_draws(demand: np.ndarray, mean_active: np.ndarray, active: np.ndarray, cells: np.ndarray,
                periods: np.ndarray, throttled: np.ndarray, *, step_s: float, limits: np.ndarray,
                limited: bool, target: float, resamples: int, seed: int) -> LimitDraws:
    """Draws of the request and the limit for one workload container's (pod, step) samples.

    Parameters
    ----------
    demand, mean_active, active
        Per sample: usage + throttled seconds (cores), demand while running, and the running share
        (the weight of ``mean_active``).
    cells, periods, throttled
        Per sample: its resampling unit (a pod's day, or a twelfth of a window under a week: ``0..n-1``), CFS
        periods and throttled periods per second.
    step_s
        Seconds per sample.
    limits, limited
        Per sample the CPU limit its pod had (NaN: none), and whether CFS counters were seen: the burstiness is
        calibrated on every limit segment, each against its own limit.
    target, resamples, seed
        Throttled-period ratio to meet, bootstrap resamples and their seed.

    Returns
    -------
    LimitDraws
    """
    blocks = cells
    nblk = int(blocks.max()) + 1
    # one log lattice (3% steps) for the demand bins and the candidate limits: P(throttled) depends on their ratio only
    top = max(float(mean_active.max()), float(demand.max()), 1e-3) * 1.0001
    hi_lim = max(top * 4, float(np.nanmax(limits, initial=0.0)) * 1.5, 0.05)
    lo = max(min(float(mean_active.min()), float(demand.min())), top / 3e3, 1e-4)
    n_lat = int(math.ceil(math.log(hi_lim / lo) / STEP_LOG)) + 1
    lattice = lo * np.exp(STEP_LOG * np.arange(n_lat))
    n_bins = int(np.searchsorted(lattice, top)) + 1
    centers = lattice[:n_bins]
    edges = np.concatenate([[0.0], centers * math.exp(STEP_LOG / 2)])
    edges[-1] = max(edges[-1], top * 1.001)
    h_active = _hist(mean_active, active, edges, blocks, nblk)  # weights: running share
    h_demand = _hist(demand, np.ones_like(demand), edges, blocks, nblk)
    rng = np.random.default_rng(seed)
    W = np.vstack([np.ones(nblk), rng.multinomial(nblk, np.full(nblk, 1 / nblk), size=resamples)]).astype(float)
    ha = W @ h_active  # (R+1, bins); row 0 is the observed data
    req = _wquantile(W @ h_demand, centers, 0.95)

    # sigma per resample
    tail = np.zeros(len(W), bool)
    if limited and float(periods.sum() * step_s) > 0:
        rp, rt = W @ np.bincount(blocks, periods, nblk), W @ np.bincount(blocks, throttled, nblk)
        informative = rt * step_s >= 10
        observed = np.where(informative, rt / np.maximum(rp, 1e-12), (rt * step_s + 3) / np.maximum(rp * step_s, 1))
        tail = ~informative | (observed < FAR_TAIL * target)
        curve, curve_g, weight = 0.0, 0.0, 0.0
        for lim in np.unique(limits[np.isfinite(limits)]):  # each limit segment against its own limit
            seg = limits == lim
            h = W @ _hist(mean_active[seg], active[seg], edges, blocks[seg], nblk)
            k = (np.log(lim / np.maximum(centers, 1e-9))[:, None] + SIGMAS[None, :] ** 2 / 2) / SIGMAS[None, :]
            curve = curve + h @ norm_sf(k)
            if tail.any():  # the gamma cross-check's curve only where a draw is far in the tail
                curve_g = curve_g + h @ gamma_sf((lim / np.maximum(centers, 1e-9))[:, None], CVS[None, :])
            weight = weight + h.sum(1, keepdims=True)
        curve = curve / np.maximum(weight, 1e-12)  # (R+1, sigmas)
        sig = calibrate_sigma(curve, observed, informative)
        source = "calibrated at the current limit" if informative[0] else "prior, bounded by no throttling seen"
        prior = np.exp(rng.uniform(*np.log(CV_PRIOR_RANGE), len(W)))  # unobserved: spread the prior
        prior[0] = CV_PRIOR
        cv = np.full(len(W), np.nan)
        if tail.any():
            curve_g = curve_g / np.maximum(weight, 1e-12)
            cv = np.where(tail, calibrate_sigma(curve_g, observed, informative, grid=CVS, prior=prior), np.nan)
    else:
        sig = np.full(len(W), SIGMA_NO_LIMIT)
        sig[1:] = np.exp(rng.uniform(np.log(0.4), np.log(1.6), resamples))  # unobserved: spread the prior
        source = "assumed (no CFS counters: no limit)"
        cv = np.full(len(W), np.nan)

    # limits per resample on the lattice (Toeplitz: ratio index g - b), interpolated to the target
    offsets = np.arange(-(n_bins - 1), n_lat) * STEP_LOG  # log(limit / centre) for g - b
    gather = np.arange(n_lat)[None, :] - np.arange(n_bins)[:, None] + (n_bins - 1)

    weight = np.maximum(ha.sum(1), 1e-12)

    def smallest(params: np.ndarray, rows_all: np.ndarray, sf) -> np.ndarray:
        # the predicted ratio falls as the limit rises, so each draw's first lattice limit at or under the target is
        # found by bisection over the lattice (the ratio at a limit: its bins' shares times the curve at limit/centre)
        first = np.full(len(W), n_lat)
        y0, y1 = np.ones(len(W)), np.ones(len(W))
        uniq = np.unique(params[rows_all])
        curves = sf(uniq[:, None])  # every parameter's curve at once (one row each)
        for sg, c in zip(uniq, curves):
            rows = np.flatnonzero(rows_all & (params == sg))
            h = ha[rows]

            def ratio_at(g: np.ndarray) -> np.ndarray:  # (rows,) lattice indices -> predicted ratios
                return np.einsum("rb,br->r", h, c[gather[:, g]]) / weight[rows]

            lo, hi = np.zeros(len(rows), np.int64), np.full(len(rows), n_lat)  # first index meeting it is in [lo, hi]
            while np.any(lo < hi):
                mid = (lo + hi) // 2
                meets = ratio_at(np.minimum(mid, n_lat - 1)) <= target
                lo, hi = np.where(meets | (lo >= hi), lo, mid + 1), np.where(meets & (lo < hi), mid, hi)
            first[rows] = lo
            y1[rows] = ratio_at(np.minimum(lo, n_lat - 1))
            y0[rows] = ratio_at(np.maximum(lo - 1, 0))
        found = first < n_lat
        prev = np.maximum(first - 1, 0)
        # ratio falls from y0 (> target) to y1 (<= target)
        frac = np.clip((y0 - target) / np.maximum(y0 - y1, 1e-12), 0, 1)
        out = np.exp(np.log(lattice[prev]) + frac * STEP_LOG)
        return np.where(found, np.where(first > 0, out, lattice[0]), hi_lim)

    lim = smallest(sig, np.ones(len(W), bool), lambda sg: norm_sf((offsets + sg**2 / 2) / sg))
    if tail.any():  # far-tail calibration: the larger of the log-normal's and the gamma's limits
        lim_g = smallest(cv, tail, lambda c: gamma_sf(np.exp(offsets), c))
        used = tail & (lim_g > lim)
        lim, cv = np.where(used, lim_g, lim), np.where(used, cv, np.nan)
        if used[0]:
            source += (f"; the throttling seen is far below the target, so the limit is the larger of the log-normal's "
                       f"and a gamma burst factor's (cv {cv[0]:.2f}"
                       + (", prior" if not informative[0] else "") + ")")
    return LimitDraws(request=req, limit=np.maximum(lim, req), sigma=sig, sigma_source=source, cv=cv)
