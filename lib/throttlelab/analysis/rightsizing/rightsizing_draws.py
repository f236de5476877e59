"""Bootstrap draws of a container's request and limit, with the burstiness calibrated per draw on its throttling."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from throttlelab.analysis.rightsizing.throttle_model import SIGMAS, calibrate_sigma, norm_sf

SIGMA_NO_LIMIT = 0.8  # no CFS counters: neither bursts nor the running share are seen
STEP_LOG = math.log(1.03)  # demand bins and candidate limits 3% apart


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
    """

    request: np.ndarray
    limit: np.ndarray
    sigma: np.ndarray
    sigma_source: str


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


def limit_draws(demand: np.ndarray, mean_active: np.ndarray, active: np.ndarray, times: np.ndarray,
                periods: np.ndarray, throttled: np.ndarray, *, span: float, step_s: float,
                limit_cores: float | None, limited: bool, target: float, resamples: int, seed: int) -> LimitDraws:
    """Draws of the request and the limit for one container's steps.

    Parameters
    ----------
    demand, mean_active, active
        Per step: usage + throttled seconds (cores), demand while running, and the running share
        (the weight of ``mean_active``).
    times, periods, throttled
        Per step: unix seconds, CFS periods and throttled periods per second.
    span, step_s
        Window length and step (seconds): blocks are days, or a twelfth of a shorter window.
    limit_cores, limited
        The current limit and whether its CFS counters were seen (the burstiness is calibrated on them).
    target, resamples, seed
        Throttled-period ratio to meet, bootstrap resamples and their seed.

    Returns
    -------
    LimitDraws
    """
    block_s = 86400.0 if span >= 7 * 86400 else span / 12
    blocks = ((times - times[0]) // block_s).astype(np.int64)
    nblk = int(blocks.max()) + 1
    # one log lattice (3% steps) for the demand bins and the candidate limits: P(throttled) depends on their ratio only
    top = max(float(mean_active.max()), float(demand.max()), 1e-3) * 1.0001
    hi_lim = max(top * 4, (limit_cores or 0) * 1.5, 0.05)
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
    if limited and float(periods.sum() * step_s) > 0:
        k = (np.log(limit_cores / np.maximum(centers, 1e-9))[:, None] + SIGMAS[None, :] ** 2 / 2) / SIGMAS[None, :]
        curve = (ha @ norm_sf(k)) / np.maximum(ha.sum(1, keepdims=True), 1e-12)  # (R+1, sigmas)
        rp, rt = W @ np.bincount(blocks, periods, nblk), W @ np.bincount(blocks, throttled, nblk)
        informative = rt * step_s >= 10
        observed = np.where(informative, rt / np.maximum(rp, 1e-12), (rt * step_s + 3) / np.maximum(rp * step_s, 1))
        sig = calibrate_sigma(curve, observed, informative)
        source = "calibrated at the current limit" if informative[0] else "prior, bounded by no throttling seen"
    else:
        sig = np.full(len(W), SIGMA_NO_LIMIT)
        sig[1:] = np.exp(rng.uniform(np.log(0.4), np.log(1.6), resamples))  # unobserved: spread the prior
        source = "assumed (no CFS counters: no limit)"

    # limits per resample on the lattice (Toeplitz: ratio index g - b), interpolated to the target
    offsets = np.arange(-(n_bins - 1), n_lat) * STEP_LOG  # log(limit / centre) for g - b
    gather = np.arange(n_lat)[None, :] - np.arange(n_bins)[:, None] + (n_bins - 1)
    pred = np.empty((len(W), n_lat))
    for sg in np.unique(sig):
        rows = np.flatnonzero(sig == sg)
        pg = norm_sf((offsets + sg**2 / 2) / sg)[gather]
        pred[rows] = (ha[rows] @ pg) / np.maximum(ha[rows].sum(1, keepdims=True), 1e-12)
    ok = pred <= target
    first = np.argmax(ok, 1)
    prev = np.maximum(first - 1, 0)
    rows = np.arange(len(W))
    y0, y1 = pred[rows, prev], pred[rows, first]  # ratio falls from y0 (> target) to y1 (<= target)
    frac = np.clip((y0 - target) / np.maximum(y0 - y1, 1e-12), 0, 1)
    lim = np.exp(np.log(lattice[prev]) + frac * STEP_LOG)
    lim = np.where(ok.any(1), np.where(first > 0, lim, lattice[0]), hi_lim)
    return LimitDraws(request=req, limit=np.maximum(lim, req), sigma=sig, sigma_source=source)
