"""Profile-likelihood intervals of least-squares parameters, and warnings for parameters at a bound.

For parameter ``i`` the profile ``RSS_i(v)`` is the residual sum of squares
with parameter ``i`` fixed at ``v`` and the others refitted (within their
bounds).  The interval is ``{v : RSS_i(v) <= RSS_min (1 + F_{1,df}(level) / df)}``
(the F form, better calibrated than the chi-square one at the few points a
limit sweep has).  Its ends are found by root search outwards from the
estimate; where the profile stays inside up to a bound the interval ends at
the bound (and a warning says so), where it stays inside to infinity the end
is ``inf`` (the data do not bound the parameter).  Unlike the asymptotic
interval it follows curved likelihoods; unlike the residual bootstrap it does
not shrink when a fit sits on a bound.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
from scipy import optimize, stats
from scipy.optimize import least_squares


def profile_rss(resid: Callable[[np.ndarray], np.ndarray], x_hat: np.ndarray, i: int, value: float,
                lower: np.ndarray, upper: np.ndarray) -> float:
    """RSS with parameter ``i`` fixed at ``value`` and the others refitted from ``x_hat``."""
    free = [j for j in range(len(x_hat)) if j != i]
    if not free:
        p = np.array([value], float)
        r = resid(p)
        return float(r @ r)

    def sub(q):
        p = np.array(x_hat, float)
        p[free] = q
        p[i] = value
        return resid(p)

    lo, hi = np.asarray(lower, float)[free], np.asarray(upper, float)[free]
    x0 = np.clip(np.asarray(x_hat, float)[free], lo + 1e-12, np.where(np.isfinite(hi), hi - 1e-12, np.inf))
    r = least_squares(sub, x0, bounds=(lo, hi), x_scale="jac", max_nfev=2000)
    return float(2 * r.cost)


def profile_interval(resid, x_hat, i, lower, upper, rss_min, df, level=0.95) -> tuple[float, float, list[str]]:
    """(low, high, notes) of parameter ``i`` (see the module docstring)."""
    est = float(x_hat[i])
    cut = rss_min * (1 + stats.f.ppf(level, 1, max(df, 1)) / max(df, 1))

    def excess(v):
        return profile_rss(resid, x_hat, i, v, lower, upper) - cut

    notes: list[str] = []
    if excess(est) > 0:  # the refit at the estimate is already above the cut-off: an exact fit (no residual)
        return est, est, ["the model fits the points exactly (no residual): no interval width can be measured"]
    ends = []
    for side, bound in ((-1, float(lower[i])), (1, float(upper[i]))):
        step = max(abs(est) * 0.05, 1e-6)
        prev, v, found = est, est, None
        for _ in range(60):
            v = est + side * step
            if (side < 0 and v <= bound) or (side > 0 and v >= bound):
                v = bound
                if excess(v) <= 0:
                    found = bound
                    notes.append(f"interval reaches the bound {bound:g}")
                else:
                    found = optimize.brentq(excess, min(prev, v), max(prev, v), xtol=1e-10 + 1e-8 * abs(est))
                break
            if excess(v) > 0:
                found = optimize.brentq(excess, min(prev, v), max(prev, v), xtol=1e-10 + 1e-8 * abs(est))
                break
            prev, step = v, step * 2
        if found is None:
            found = side * math.inf
            notes.append("the data do not bound it " + ("below" if side < 0 else "above"))
        ends.append(float(found))
    return ends[0], ends[1], notes


def bound_warnings(names, x_hat, lower, upper, rel: float = 1e-6) -> list[str]:
    """``"<name> at its lower bound 0"`` for estimates on (or within ``rel`` of) a bound."""
    out = []
    for name, v, lo, hi in zip(names, x_hat, lower, upper):
        tol = rel * max(1.0, abs(v))
        if math.isfinite(lo) and v - lo <= tol:
            out.append(f"{name} at its lower bound {lo:g}")
        if math.isfinite(hi) and hi - v <= tol:
            out.append(f"{name} at its upper bound {hi:g}")
    return out
