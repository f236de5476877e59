"""Thread-count claims made for a whole sweep: every limit's settings in one family, Bonferroni across the limits.

A thread sweep answers many questions at once: at every limit, which explicit
counts are slower than the best, and whether ``auto`` differs from the best.
The report speaks for the whole sweep (a headline picks the limit with the
largest gap), so its error is controlled over the whole sweep:

* at one limit every claim is a pairwise comparison of its settings (explicit
  counts and ``auto``), studentised with the limit's run-to-run noise; their
  null is the largest studentised pairwise gap of equal settings
  (Tukey-Kramer's studentised range, simulated with the noise's degrees of
  freedom), so choosing the best after looking is paid for;
* across the ``limits`` of the sweep, Bonferroni: each limit is tested at
  ``alpha / limits`` and a p-value is ``limits`` times the limit's own.

The intervals are the simultaneous pairwise intervals of that family, so they
hold for every limit at once, also for the limit a headline picks.
``auto`` against the fastest explicit count, ``theta = mu_auto - min_j mu_j``,
lies in ``[max_j L_j, max_j U_j]`` when every pairwise interval ``[L_j, U_j]``
of ``mu_auto - mu_j`` does.  A claim is made exactly when its interval (at
``1 - alpha``) excludes zero, so verdicts, intervals and p-values agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from throttlelab.core.ordering import argbest
from throttlelab.analysis.stats import pairwise_max_null
from throttlelab.results import ConfidenceInterval


@dataclass(frozen=True)
class LimitFamily:
    """The null of one limit's pairwise comparisons, tested as one of ``limits`` limits of a sweep.

    Attributes
    ----------
    null
        Sorted simulated largest studentised pairwise gaps of equal settings (unit noise).
    limits
        Limits in the sweep's family (the Bonferroni divisor; 1: this limit on its own).
    """

    null: np.ndarray
    limits: int

    def p_value(self, t: float) -> float:
        """Sweep-adjusted p-value of a studentised gap ``t`` (1 for ``t <= 0``)."""
        if not t > 0:
            return 1.0
        n = self.null.size
        exceed = n - int(np.searchsorted(self.null, t, side="left"))
        return float(min(1.0, self.limits * (exceed + 1) / (n + 1)))

    def critical(self, alpha: float) -> float:
        """The gap above which :meth:`p_value` is below ``alpha`` (``inf`` when no gap is)."""
        n = self.null.size
        most = math.ceil(alpha * (n + 1) / self.limits - 1) - 1  # largest exceedance count with p < alpha
        return float("inf") if most < 0 else float(self.null[n - most - 1])


def limit_family(n_runs, df: float, limits: int, *, n_sim: int = 20000, seed: int = 0) -> LimitFamily:
    """The :class:`LimitFamily` of settings with ``n_runs`` runs each and noise with ``df`` degrees of freedom."""
    return LimitFamily(pairwise_max_null(n_runs, df, n_sim=n_sim, seed=seed), max(int(limits), 1))


def slower_than_best(mean_log: np.ndarray, n_runs: np.ndarray, sigma: float, family: LimitFamily) -> np.ndarray:
    """Sweep-adjusted p-values of "explicit count k is slower than the fastest-looking one" (1 for the best)."""
    m = np.asarray(mean_log, float)
    nn = np.asarray(n_runs, float)
    b = argbest(m)
    t = (m - m[b]) / (sigma * np.sqrt(1 / nn + 1 / nn[b]))
    p = np.array([family.p_value(x) for x in t])
    p[b] = 1.0
    return p


def auto_against_best(mean_auto: float, n_auto: int, mean_log: np.ndarray, n_runs: np.ndarray, sigma: float,
                      family: LimitFamily, level: float) -> tuple[ConfidenceInterval, float]:
    """Simultaneous interval (percent) and sweep-adjusted p-value of ``auto`` against the fastest explicit count.

    "auto is slower" needs auto slower than some explicit count, "auto is faster" faster than every one; the
    p-value is the smaller of the two (both are pairs of the same family, so no doubling).
    """
    m = np.asarray(mean_log, float)
    se = sigma * np.sqrt(1 / n_auto + 1 / np.asarray(n_runs, float))
    d = mean_auto - m
    t = d / se
    c = family.critical(1 - level)
    low, high = float(np.max(d - c * se)), float(np.max(d + c * se))
    p_slower = family.p_value(float(t.max()))
    p_faster = family.p_value(float((-t).min()))
    return ConfidenceInterval(100 * math.expm1(low), 100 * math.expm1(high)), min(p_slower, p_faster)


def pair_change(d: float, n_1: int, n_2: int, sigma: float, family: LimitFamily,
                level: float) -> tuple[ConfidenceInterval, float]:
    """Simultaneous interval of a log difference ``d`` between two settings of a limit, and its adjusted p-value.

    The interval is on the log scale (``low``, ``high``); the p-value is two-sided within the family.
    """
    se = sigma * math.sqrt(1 / n_1 + 1 / n_2)
    c = family.critical(1 - level)
    return ConfidenceInterval(d - c * se, d + c * se), family.p_value(abs(d) / se)


def runs_to_decide(d: float, sigma: float, settings: int, limits: int, alpha: float, *, power: float = 0.8,
                   n_sim: int = 20000) -> int:
    """Runs per cell for ``power`` to decide a log difference ``d`` in this family (large-sample critical value)."""
    from scipy import stats

    c = limit_family((1,) * max(settings, 2), math.inf, limits, n_sim=n_sim).critical(alpha)
    return math.ceil(2 * ((c + stats.norm.ppf(power)) * sigma / abs(d)) ** 2)


def describe(limits: int, alpha: float) -> str:
    """The procedure in one sentence, for the method text."""
    per = alpha / max(limits, 1)
    where = (f"Bonferroni across the {limits} limits of the sweep (each limit at {per:.3g})" if limits > 1 else
             "one limit on its own")
    return ("claims controlled over the whole sweep: at each limit every setting (explicit counts and auto) is "
            "compared pairwise, studentised with that limit's noise, against the largest gap of equal settings "
            "(Tukey-Kramer studentised range, simulated with the noise's degrees of freedom, so choosing the best "
            f"after looking is paid for); {where}; intervals are simultaneous over every limit, so they also hold "
            "for the limit a headline picks")
