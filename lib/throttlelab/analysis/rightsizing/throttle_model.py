"""The throttling model behind the right-sizing: predicted throttled-period ratio at a limit, and its calibration.

A container runs in a share ``a`` of the CFS periods (periods/s x period);
within a running period its demand is ``demand / a x X`` with ``X``
log-normal (mean 1, shape ``sigma``).  A period is throttled when that
exceeds the limit, so the predicted throttled-period ratio at limit ``L`` is
``sum(a * P(X > L a / demand)) / sum(a)`` (:func:`throttle_curve`).  ``sigma``
is calibrated so the prediction at the current limit equals the observed ratio
(:func:`calibrate_sigma`); where nothing was throttled it is the smaller of a
prior (:data:`SIGMA_PRIOR`) and the largest value the observation allows (95%
Poisson bound); with no limit it is the prior.

Tail cross-check
    A ratio far below the target (under a tenth of it, or nothing throttled)
    measures only the far tail of the bursts; how the tail reaches from there to
    the target's share is not seen, and a log-normal fitted out there has a
    heavier tail than a gamma burst factor, so it makes the body too narrow and
    the limit too small.  The same observation is then also fitted with a gamma
    burst factor (mean 1, coefficient of variation ``cv``; :func:`gamma_sf`,
    searched over :data:`CVS`; nothing throttled: the smaller of :data:`CV_PRIOR`
    and the largest ``cv`` the observation allows), and the larger of the two
    limits is taken: the conservative end over the two tail shapes.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

#: Burstiness assumed where the counters cannot measure it.
SIGMA_PRIOR = 0.5
#: The grid of burstiness values the calibration searches.
SIGMAS = np.geomspace(0.05, 3.0, 48)
#: The gamma burst factor's coefficients of variation the tail cross-check searches.
CVS = np.geomspace(0.1, 3.0, 48)
#: Gamma cv assumed where nothing was throttled: the 86th percentile of a log-uniform prior over 0.3-1.5 (the spread
#: of burstiness our simulated containers span), not its centre (0.67): a limit too small throttles, one too large
#: only reserves; the bound from no throttling seen still caps it.
CV_PRIOR = 1.2
CV_PRIOR_RANGE = (0.3, 1.5)


def norm_sf(x):
    """Standard normal survival function (vectorised, via erfc)."""
    return 0.5 * special.erfc(x / math.sqrt(2))


def throttle_curve(mean_active: np.ndarray, weight: np.ndarray, limits: np.ndarray, sigma: float | np.ndarray) -> np.ndarray:
    """Predicted throttled-period ratio at each of ``limits`` (see the module docstring).

    >>> round(float(throttle_curve(np.array([1.0]), np.array([1.0]), np.array([1.0]), 0.5)[0]), 3)
    0.401
    """
    m = np.maximum(mean_active, 1e-9)[:, None]
    s = np.asarray(sigma, dtype=float)
    lim = np.asarray(limits, dtype=float)[None, :]
    k = (np.log(lim / m) + s**2 / 2) / s
    p = norm_sf(k)
    w = weight[:, None]
    return (w * p).sum(0) / max(weight.sum(), 1e-12)


def gamma_curve(mean_active: np.ndarray, weight: np.ndarray, limits: np.ndarray, cv: float) -> np.ndarray:
    """:func:`throttle_curve` with a gamma burst factor of coefficient of variation ``cv`` (the tail cross-check).

    >>> round(float(gamma_curve(np.array([1.0]), np.array([1.0]), np.array([1.0]), 1.0)[0]), 3)
    0.368
    """
    m = np.maximum(mean_active, 1e-9)[:, None]
    p = gamma_sf(np.asarray(limits, dtype=float)[None, :] / m, cv)
    return (weight[:, None] * p).sum(0) / max(weight.sum(), 1e-12)


def gamma_sf(x, cv: float | np.ndarray) -> np.ndarray:
    """P(X > x) for a gamma burst factor X of mean 1 and coefficient of variation ``cv``.

    >>> round(float(gamma_sf(np.array([1.0]), 1.0)[0]), 3)  # exponential: exp(-1)
    0.368
    """
    k = 1.0 / np.asarray(cv, dtype=float) ** 2
    return special.gammaincc(k, k * np.maximum(np.asarray(x, dtype=float), 0.0))


def calibrate_sigma(curve_by_sigma: np.ndarray, observed: np.ndarray, informative: np.ndarray, *,
                    grid: np.ndarray = SIGMAS, prior: float | np.ndarray = SIGMA_PRIOR) -> np.ndarray:
    """Per row, the sigma (of ``grid``) whose predicted ratio at the current limit equals ``observed``.

    The curve over sigma can rise then fall (demand mostly below, or mostly above, the limit), so it may cross
    ``observed`` twice: the crossing nearest the prior is taken, and without a crossing the closest point.
    Rows not ``informative`` (fewer than 10 throttled periods) take min(prior, smallest sigma reaching the bound).
    ``prior`` may be one value per row.  The gamma cross-check passes ``grid=CVS, prior=CV_PRIOR``.
    """
    prior = np.broadcast_to(np.asarray(prior, dtype=float), observed.shape)
    diff = curve_by_sigma - observed[:, None]
    cross = np.signbit(diff[:, :-1]) != np.signbit(diff[:, 1:])
    dist = np.abs(np.log(grid[None, :-1] / prior[:, None]))
    j = np.argmin(np.where(cross, dist, np.inf), 1)
    sig = np.where(cross.any(1), grid[j], grid[np.argmin(np.abs(diff), 1)])
    reach = curve_by_sigma >= observed[:, None]
    bound = np.where(reach.any(1), grid[np.argmax(reach, 1)], prior)
    return np.where(informative, sig, np.minimum(bound, prior))


def _served(m: np.ndarray, limit: np.ndarray, sigma: float) -> np.ndarray:
    """E[min(m X, L)]: what a limit ``L`` serves of a running demand ``m X`` (X log-normal, mean 1, shape sigma)."""
    k = (np.log(limit / m) + sigma**2 / 2) / sigma
    return m * (1 - norm_sf(k - sigma)) + limit * norm_sf(k)


@functools.cache
def _demand_table(points: int = 20_000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per sigma of :data:`SIGMAS` (rows): ``log(served / L)`` (``x``) at ``points`` values of ``u = log(m / L)`` from
    -40 to the top, and the share of periods throttled there (the served part scales with the limit, so one table
    serves every limit; linear interpolation is within about 2e-5 of the share)."""
    col = SIGMAS[:, None]
    u = np.array([np.linspace(-40.0, s * s / 2 + 3 * s, points) for s in SIGMAS])
    return np.log(_served(np.exp(u), 1.0, col)), u, norm_sf((-u + col**2 / 2) / col)


def _interp_rows(x: np.ndarray, xp: np.ndarray, fp: np.ndarray) -> np.ndarray:
    """``np.interp(x[i], xp[i], fp[i])`` for each row ``i`` (``x`` may have one row for all), the same values: each
    row looked up in the order of the first row's ``x`` (``np.interp`` starts each search where the last ended, so
    sorted points take a few steps each instead of a full binary search) and put back in place.

    >>> _interp_rows(np.array([[0.5, 2.0, 0.0]]), np.array([[0.0, 1.0, 2.0], [0.0, 2.0, 4.0]]), np.arange(6.0).reshape(2, 3))
    array([[0.5 , 2.  , 0.  ],
           [3.25, 4.  , 3.  ]])
    """
    order = np.argsort(x[0], kind="stable")
    xs = x[:, order]
    found = np.empty(np.broadcast_shapes(x.shape, (len(xp), x.shape[1])))
    for i in range(len(found)):
        found[i] = np.interp(xs[min(i, len(xs) - 1)], xp[i], fp[i])
    out = np.empty_like(found)
    out[:, order] = found
    return out


def _solve_demand(served: np.ndarray, limit: np.ndarray, sigma: float | np.ndarray,
                  rows: np.ndarray | None = None) -> np.ndarray:
    """log of the running demand whose served part (:func:`_served`) is ``served``; ``sigma`` may be a column (one
    row per sigma, every row solved at once), and ``rows`` its indices in :data:`SIGMAS` where it is ``SIGMAS[rows]``.

    Safeguarded Newton on ``u = log m`` between ``lo = log(served)`` (a limit serves at most the demand) and ``top``
    (throttled in 99.9% of periods: more is not told apart, so demand beyond is held there): the served part rises
    with ``u`` (slope ``m P(m X* < L)``, ``X*`` the size-biased burst factor), so each row keeps a bracket around its
    root and takes the Newton step where it falls inside, else the bracket's midpoint, until every step (or the
    bracket) is under 1e-12 or the served part is met to its rounding.  With ``rows``, each row starts from a table of
    the served part (:func:`_demand_table`, within about 1e-5 of the root), so two or three steps finish.

    >>> float(np.round(np.exp(_solve_demand(np.array([0.5]), np.array([1.0]), 0.5)), 4)[0])  # 500m served of 1 core
    0.5151
    """
    top = np.log(limit) + sigma**2 / 2 + 3 * sigma
    lo = np.minimum(np.log(np.maximum(served, 1e-9)), top)
    lo, hi, served, limit, sig = (np.array(x, dtype=float) for x in np.broadcast_arrays(lo, top, served, limit, sigma))
    if rows is not None:
        xs = np.log(np.maximum(served, 1e-9) / limit)
        tx, tu, _ = _demand_table()
        beyond = xs >= tx[rows, -1:]
        u0 = _interp_rows(xs, tx[rows], tu[rows]) + np.log(limit)
        out = np.where(beyond, hi, np.where(served > 1e-9, np.clip(u0, lo, hi), lo))
        todo = np.flatnonzero(~beyond & (served > 1e-9))
    else:
        out = np.where(_served(np.exp(hi), limit, sig) < served, hi, lo)  # beyond top: top; at or below lo: lo
        todo = np.flatnonzero((out == lo) & (_served(np.exp(lo), limit, sig) < served))
    u = out.ravel()[todo]
    lo, hi, served, limit, sig = (x.ravel()[todo] for x in (lo, hi, served, limit, sig))
    log_l, s2 = np.log(limit), sig**2 / 2
    for _ in range(200):
        if not len(u):
            break
        m = np.exp(u)
        k = (log_l - u + s2) / sig
        slope = m * (1 - norm_sf(k - sig))
        f = m - m * norm_sf(k - sig) + limit * norm_sf(k) - served
        lo, hi = np.where(f < 0, u, lo), np.where(f < 0, hi, u)
        newton = u - f / np.maximum(slope, 1e-300)
        new = np.where((newton >= lo) & (newton <= hi), newton, (lo + hi) / 2)
        new = np.where(f == 0, u, new)
        tol = 1e-12 * np.maximum(1.0, np.abs(u))
        # and the served part's own rounding: where it is flat (deep throttling) a step cannot tell more
        moving = (np.abs(new - u) > tol) & (hi - lo > tol) & (np.abs(f) > 1e-15 * (m + limit))
        out.ravel()[todo] = new
        keep = np.flatnonzero(moving)
        todo, u, lo, hi, served, limit, sig, log_l, s2 = (
            x[keep] for x in (todo, new, lo, hi, served, limit, sig, log_l, s2))
    return out


def _running_demand(served: np.ndarray, ratio: np.ndarray, limit: np.ndarray, sigma: float,
                    log_m: np.ndarray | None = None) -> np.ndarray:
    """Running demand ``m`` per step: from what the limit served (solving :func:`_served`; ``log_m``: its
    result, already found), and at least what the step's throttled-period ratio implies where it has one
    (``P(m X > L) = ratio``, clipped to 0.99)."""
    hi = _solve_demand(served, limit, sigma) if log_m is None else log_m
    from scipy.special import ndtri

    k = -ndtri(np.clip(ratio, 1e-9, 0.99))  # norm_sf(k) = ratio
    return np.maximum(np.exp(hi), np.where(ratio > 0, limit * np.exp(sigma**2 / 2 - sigma * k), 0.0))


def throttled_seconds_from_periods(usage: np.ndarray, active: np.ndarray, limits: np.ndarray, periods: np.ndarray,
                                   throttled: np.ndarray, step_s: float,
                                   cap_cores: float | None = None) -> tuple[np.ndarray, float]:
    """Throttled (unserved) cores per step where ``container_cpu_cfs_throttled_seconds_total`` is missing, from the
    throttled periods alone, and the burstiness found.

    For each ``sigma`` of :data:`SIGMAS` the running demand of each step is the one whose served part equals its usage
    (at least what its own throttled-period ratio implies); ``sigma`` is the one whose predicted throttled-period ratio
    over all steps equals the observed one (the crossing nearest :data:`SIGMA_PRIOR`; under 10 throttled periods, the
    smaller of the prior and the largest sigma the count allows, as :func:`calibrate_sigma`).  Steps without a limit
    or CFS periods get 0.  ``usage``, ``periods`` and ``throttled`` are per second over steps of ``step_s``.  A step
    throttled in nearly every period tells only that its demand exceeded the limit: its demand is held at
    ``cap_cores`` (the node's size; default four times the largest limit).  Returns (throttled cores per step, sigma).

    Running half the time at a 1-core limit, 450m used, half the periods throttled:

    >>> a = np.full(100, 0.5); u = np.full(100, 0.45); lim = np.full(100, 1.0)
    >>> ts, s = throttled_seconds_from_periods(u, a, lim, np.full(100, 5.0), np.full(100, 2.5), 60.0)
    >>> round(float(ts.mean()), 3), round(s, 2)
    (0.071, 0.29)
    """
    ok = np.isfinite(limits) & (periods > 0)
    if not ok.any():
        return np.zeros(len(usage)), SIGMA_PRIOR
    a, lim = active[ok], limits[ok]
    served = usage[ok] / a
    ratio = throttled[ok] / periods[ok]
    n_thr, n_per = float(throttled[ok].sum() * step_s), float(periods[ok].sum() * step_s)
    informative = n_thr >= 10
    observed = n_thr / n_per if informative else (n_thr + 3) / max(n_per, 1)
    # the predicted ratio at every sigma from the table (within 2e-5), then solved exactly at the sigmas whose
    # prediction is within 1e-3 of the observed ratio or of the closest one: the calibration compares only those
    # (a crossing, the closest point, the first reaching the bound), so it picks what solving all would pick
    tx, _, tp = _demand_table()
    xs = np.log(np.maximum(served, 1e-9) / lim)
    a_sum = a.sum()
    pred = np.array([float(row.sum() / a_sum) for row in a * _interp_rows(xs[None, :], tx, tp)])
    gap = np.abs(pred - observed)
    exact = np.flatnonzero((gap < 1e-3) | (gap <= gap.min() + 1e-3))
    col = SIGMAS[exact][:, None]
    log_ms = _solve_demand(served, lim, col, rows=exact)
    p = a * norm_sf((np.log(lim / np.exp(log_ms)) + col**2 / 2) / col)
    pred[exact] = [float(row.sum() / a_sum) for row in p]  # row by row: the same summation as one sigma at a time
    sigma = float(calibrate_sigma(np.array([pred]), np.array([observed]), np.array([informative]))[0])
    hit = np.flatnonzero(SIGMAS[exact] == sigma)
    m = _running_demand(served, ratio, lim, sigma, log_m=log_ms[hit[0]] if len(hit) else None)
    cap = cap_cores if cap_cores else 4 * float(lim.max())
    out = np.zeros(len(usage))
    out[ok] = np.clip(a * m, usage[ok], max(cap, float(usage[ok].max()))) - usage[ok]
    return out, sigma
