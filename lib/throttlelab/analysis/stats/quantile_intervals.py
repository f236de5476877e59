"""Intervals of quantiles (p50-p99): order statistics for one run, per-run quantiles across runs of a configuration.

For independent samples the interval ``[x(l), x(u)]`` covers the true
quantile with probability ``>= level`` whatever the distribution (the ranks
come from the binomial distribution).  Where ``n`` cannot support one (p99
needs 368 samples at 95%, p95 72) the interval is ``null`` and the note says
how many samples would do.  The estimate is the shared
:class:`~throttlelab.results.Estimate`.

Requests pooled from several runs of one configuration are not independent:
a run's requests share its conditions.  :func:`pooled_quantile_interval` makes
the run the unit.  Its point estimate is the quantile of the pooled requests
(which estimates the configuration's quantile: that of its request-time
distribution mixed over its run-to-run variation); its interval is that value
times ``exp(+-t * s / sqrt(k))``, with ``s`` the standard deviation of the log
per-run quantiles of the ``k`` runs and ``t`` on ``k - 1`` df
(:func:`across_runs`).  With one run it is the order-statistic interval of that
run's requests, and :class:`PooledEstimate` says run-to-run noise is unmeasured
(``run_to_run_measured`` false).  Coverage is simulated in
:mod:`~throttlelab.analysis.batteries.pooled_quantile_battery`.

>>> e = quantile_interval(range(1, 101), "p50")
>>> e.value, e.low, e.high, e.n_samples
(50.5, 40.0, 61.0, 100)
>>> quantile_interval(range(50), "p99").note
'not enough samples for p99 (n=50; need 368)'
>>> p = pooled_quantile_interval([1, 2, 3, 4, 5, 2, 3, 4, 5, 6, 3, 4, 5, 6, 7], [0] * 5 + [1] * 5 + [2] * 5, "p50")
>>> round(p.value, 2), round(p.low, 2), round(p.high, 2), p.n_runs, p.run_to_run_measured
(4.0, 2.12, 7.56, 3, True)
>>> pooled_quantile_interval(range(1, 101), None, "p50").note
"one run: the interval covers that run's requests only; run-to-run noise is unmeasured"
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from throttlelab.results import Estimate

METHOD = "order-statistic interval (distribution-free)"
ONE_RUN = "one run: the interval covers that run's requests only; run-to-run noise is unmeasured"
TWO_RUNS = "two runs: the t interval has 1 df and is wide; a third run typically narrows it several-fold"


@dataclass(frozen=True)
class PooledEstimate(Estimate):
    """A statistic of the requests pooled from the runs of one configuration, with an interval whose unit is the run.

    Attributes
    ----------
    value, low, high, level, method, p_value, n_runs, unit, note, n_samples
        As in :class:`~throttlelab.results.Estimate`: ``n_runs`` are the runs with requests, ``n_samples`` the
        requests; ``method`` names the interval.
    run_to_run_measured
        True when two or more runs enter the interval (it then includes run-to-run variation); false with one run
        or runs not identified: the interval rests on one run's requests, run-to-run noise is unmeasured and
        ``note`` says so.
    """

    run_to_run_measured: bool = False


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


def split_runs(x, runs) -> list[np.ndarray]:
    """Finite values of ``x`` per run label in ``runs`` (same length; ``None``: one run); runs without values go."""
    arr = np.asarray(list(x) if not isinstance(x, np.ndarray) else x, float)
    if runs is None:
        parts = [arr]
    else:
        labels = np.asarray(list(runs) if not isinstance(runs, np.ndarray) else runs, object)
        if labels.shape != arr.shape:
            raise ValueError(f"runs: expected one run label per value ({arr.size}), got {labels.size}")
        parts = [arr[labels == r] for r in dict.fromkeys(labels.tolist())]
    parts = [p[np.isfinite(p)] for p in parts]
    return [p for p in parts if p.size]


def across_runs(pooled: float, per_run, level: float = 0.95) -> tuple[float, float, str]:
    """``(low, high, how)``: ``pooled`` times ``exp(+-t * sd(log per_run) / sqrt(k))``, t on ``k - 1`` df.

    Needs ``k >= 2`` per-run values; when a value is not positive the interval is on the linear scale instead.
    """
    v = np.asarray(per_run, float)
    k = v.size
    t = float(stats.t.ppf(0.5 + level / 2, k - 1))
    if pooled > 0 and (v > 0).all():
        half = t * float(np.log(v).std(ddof=1)) / math.sqrt(k)
        return pooled * math.exp(-half), pooled * math.exp(half), f"t interval on log per-run values ({k - 1} df)"
    half = t * float(v.std(ddof=1)) / math.sqrt(k)
    return pooled - half, pooled + half, f"t interval on per-run values ({k - 1} df)"


def per_run_minimum(q: float) -> int:
    """Fewest requests per run whose quantile ``q`` is not just the run's extreme: ``1 / min(q, 1 - q)`` (p99: 100)."""
    return math.ceil(1 / min(q, 1 - q) - 1e-9)


def pooled_quantile_interval(x, runs, stat: str, level: float = 0.95) -> PooledEstimate:
    """Quantile ``stat`` of requests pooled over runs, with an interval whose unit is the run (module docstring).

    ``runs`` labels each value's run (``None``: one run).  With one run: :func:`quantile_interval` of its requests
    and the note that run-to-run noise is unmeasured.  With ``k >= 2`` runs: the pooled quantile and
    :func:`across_runs` of the per-run quantiles; no interval when a run has fewer than :func:`per_run_minimum`
    requests (the note says how many would do).
    """
    q = float(stat[1:]) / 100
    parts = split_runs(x, runs)
    k = len(parts)
    if k <= 1:
        e = quantile_interval(parts[0] if parts else np.array([]), stat, level)
        note = "; ".join(n for n in (e.note, ONE_RUN if k else "") if n)
        return PooledEstimate(e.value, e.low, e.high, level, e.method, n_runs=k, note=note, n_samples=e.n_samples)
    pooled = np.concatenate(parts)
    value = float(np.quantile(pooled, q))
    n = int(pooled.size)
    need, fewest = per_run_minimum(q), min(p.size for p in parts)
    if fewest < need:
        return PooledEstimate(value, None, None, level, f"{stat} of pooled requests", n_runs=k, n_samples=n,
                              run_to_run_measured=True,
                              note=f"not enough requests per run for {stat} (fewest {fewest}; need {need} in each run)")
    low, high, how = across_runs(value, [np.quantile(p, q) for p in parts], level)
    return PooledEstimate(value, low, high, level, f"{stat} of requests pooled over {k} runs; {how}, runs as the unit",
                          n_runs=k, n_samples=n, run_to_run_measured=True, note=TWO_RUNS if k == 2 else "")
