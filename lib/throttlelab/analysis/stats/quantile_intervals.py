"""Distribution-free intervals of sample quantiles (p50-p99) from order statistics, or "not enough samples".

For independent samples the interval ``[x(l), x(u)]`` covers the true
quantile with probability ``>= level`` whatever the distribution (the ranks
come from the binomial distribution).  Where ``n`` cannot support one (p99
needs 368 samples at 95%, p95 72) the interval is ``null`` and the note says
how many samples would do.  The estimate is the shared
:class:`~throttlelab.results.Estimate`.

>>> e = quantile_interval(range(1, 101), "p50")
>>> e.value, e.low, e.high, e.n_samples
(50.5, 40.0, 61.0, 100)
>>> quantile_interval(range(50), "p99").note
'not enough samples for p99 (n=50; need 368)'
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from throttlelab.results import Estimate

METHOD = "order-statistic interval (distribution-free)"


def quantile_ranks(n: int, q: float, level: float = 0.95) -> tuple[int, int] | None:
    """1-based ranks ``(l, u)`` with ``P(x(l) <= Q(q) <= x(u)) >= level`` (equal tails), or None if ``n`` is too small."""
    a = (1 - level) / 2
    if n < 1:
        return None
    lo = int(stats.binom.ppf(a, n, q))  # P(B < lo) <= a  ->  x(lo) is below the quantile often enough
    hi = int(stats.binom.ppf(1 - a, n, q)) + 1
    while lo >= 1 and stats.binom.cdf(lo - 1, n, q) > a:
        lo -= 1
    while hi <= n and stats.binom.sf(hi - 1, n, q) > a:
        hi += 1
    if lo < 1 or hi > n:
        return None
    return lo, hi


def min_samples_for(q: float, level: float = 0.95) -> int:
    """Smallest n with an order-statistic interval for quantile ``q`` at ``level`` (both ends inside the sample)."""
    a = (1 - level) / 2
    n = max(2, int(math.log(a) / math.log(max(q, 1 - q))))
    while quantile_ranks(n, q, level) is None:
        n += 1
    return n


def quantile_interval(x, stat: str, level: float = 0.95) -> Estimate:
    """Sample quantile ``stat`` (``p50``..``p99``, linear interpolation) with its order-statistic interval.

    ``low``/``high`` are ``None`` when ``n`` cannot support an interval (``note`` says how many samples would);
    ``value`` is ``None`` without samples.  Exact coverage for independent samples.
    """
    q = float(stat[1:]) / 100
    arr = np.asarray(list(x) if not isinstance(x, np.ndarray) else x, float)
    arr = np.sort(arr[np.isfinite(arr)])
    n = int(arr.size)
    method = f"{stat}, {METHOD}"
    if n == 0:
        return Estimate(None, None, None, level, method, note="no samples", n_samples=0)
    value = float(np.quantile(arr, q))
    ranks = quantile_ranks(n, q, level)
    if ranks is None:
        return Estimate(value, None, None, level, method, n_samples=n,
                        note=f"not enough samples for {stat} (n={n}; need {min_samples_for(q, level)})")
    return Estimate(value, float(arr[ranks[0] - 1]), float(arr[ranks[1] - 1]), level, method, n_samples=n)
