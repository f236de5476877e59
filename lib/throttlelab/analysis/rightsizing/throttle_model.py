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
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

#: Burstiness assumed where the counters cannot measure it.
SIGMA_PRIOR = 0.5
#: The grid of burstiness values the calibration searches.
SIGMAS = np.geomspace(0.05, 3.0, 48)


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


def calibrate_sigma(curve_by_sigma: np.ndarray, observed: np.ndarray, informative: np.ndarray) -> np.ndarray:
    """Per row, the sigma whose predicted ratio at the current limit equals ``observed``.

    The curve over sigma can rise then fall (demand mostly below, or mostly above, the limit), so it may cross
    ``observed`` twice: the crossing nearest the prior is taken, and without a crossing the closest point.
    Rows not ``informative`` (fewer than 10 throttled periods) take min(prior, smallest sigma reaching the bound).
    """
    diff = curve_by_sigma - observed[:, None]
    cross = np.signbit(diff[:, :-1]) != np.signbit(diff[:, 1:])
    dist = np.abs(np.log(SIGMAS[:-1] / SIGMA_PRIOR))[None, :]
    j = np.argmin(np.where(cross, dist, np.inf), 1)
    sig = np.where(cross.any(1), SIGMAS[j], SIGMAS[np.argmin(np.abs(diff), 1)])
    reach = curve_by_sigma >= observed[:, None]
    bound = np.where(reach.any(1), SIGMAS[np.argmax(reach, 1)], SIGMA_PRIOR)
    return np.where(informative, sig, np.minimum(bound, SIGMA_PRIOR))
