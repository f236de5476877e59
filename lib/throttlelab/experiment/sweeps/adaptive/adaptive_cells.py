"""Run-level cell statistics of an adaptive sweep: the grid's layout, per-cell noise, outlying runs, dominance.

See :mod:`~throttlelab.experiment.sweeps.adaptive.adaptive_decisions` for the model these serve.
"""

from __future__ import annotations

from throttlelab.core.quantities import format_cores

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from throttlelab.experiment.sweeps.spec_file import AdaptiveSettings
from throttlelab.stats import PRIOR_CV, log_sd

Cell = tuple[float, "float | None", str]
"""``(contention share, limit in cores or None = unlimited, threads)``."""


@dataclass(frozen=True)
class CellStats:
    """Run-level summary of one cell."""

    cell: Cell
    runs: int  # ok runs
    used: int  # after setting outlying runs aside
    mean_log: float
    sd_log: float  # shrunk towards the pooled sd
    df: float
    ss_log: float = 0.0  # sum of squared deviations of the used runs' log times from their mean

    @property
    def seconds(self) -> float:
        """Geometric mean wall time of the used runs."""
        return math.exp(self.mean_log)


@dataclass(frozen=True)
class Layout:
    """The grid's axes: contention levels, limits (unlimited last) and thread counts."""

    contentions: tuple[float, ...]
    limits: tuple[float | None, ...]
    threads: tuple[str, ...]

    @classmethod
    def of(cls, contentions: Sequence[float], limits: Sequence[float | None], threads: Sequence[str]) -> Layout:
        lims = sorted(dict.fromkeys(limits), key=lambda v: math.inf if v is None else v)
        return cls(tuple(sorted(dict.fromkeys(contentions))), tuple(lims), tuple(dict.fromkeys(threads)))

    @property
    def cells(self) -> list[Cell]:
        return [(c, lim, t) for c in self.contentions for lim in self.limits for t in self.threads]

    @property
    def shape(self) -> tuple[int, int, int]:
        return len(self.contentions), len(self.limits), len(self.threads)


def cell_label(cell: Cell) -> str:
    """``'1.5 cores x 4 threads'`` (with ``', contention 0.5'``)."""
    c, lim, t = cell
    return f"{format_cores(lim)} cores x {t} threads" + (f", contention {c:g}" if c else "")


def cell_stats(observations: Mapping[Cell, Sequence[float]], settings: AdaptiveSettings) -> dict[Cell, CellStats]:
    """Per-cell run-level statistics of the log wall times (see the module docstring).

    The pooled noise is pooled per limit (noise grows with the limit), shrunk
    towards the pooled noise of all cells, itself shrunk towards ``prior_cv`` (by default the analysis's
    :data:`~throttlelab.stats.noise_prior.PRIOR_CV`).
    """
    logs = {c: np.log(np.asarray([v for v in vals if v and v > 0], float)) for c, vals in observations.items()}
    s_all = pooled_sd(logs.values(), settings.prior_cv)
    by_limit: dict[float | None, float] = {}
    for lim in {c[1] for c in logs}:
        by_limit[lim] = pooled_sd([y for c, y in logs.items() if c[1] == lim], prior_sd=s_all)
    nu0 = 4.0
    out = {}
    for cell, y in logs.items():
        if y.size == 0:
            continue
        s0 = by_limit[cell[1]]
        used = y
        if y.size >= 3:
            keep = y - np.median(y) <= 3.5 * s0
            if keep.sum() >= 2:
                used = y[keep]
        elif y.size == 2 and abs(y[0] - y[1]) > 3.5 * math.sqrt(2) * s0:
            used = y[[int(np.argmin(y))]]
        n = used.size
        s2 = float(np.var(used, ddof=1)) if n >= 2 else 0.0
        sd = math.sqrt((nu0 * s0**2 + (n - 1) * s2) / (nu0 + n - 1))
        out[cell] = CellStats(cell, int(y.size), int(n), float(used.mean()), sd, nu0 + n - 1,
                              float(((used - used.mean()) ** 2).sum()))
    return out


def pooled_sd(logs, prior_cv: float = PRIOR_CV, *, prior_sd: float | None = None) -> float:
    """Robust pooled run-to-run sd on the log scale: median of the cells' variances (chi-square corrected).

    With no replicated cell it is the prior (``prior_sd``, else the log-scale sd of ``prior_cv``,
    :func:`~throttlelab.stats.noise_prior.log_sd`); the prior weighs as two cells.

    Examples
    --------
    >>> import numpy as np
    >>> round(pooled_sd([np.log([1.0, 1.1]), np.log([2.0, 2.2, 2.1])]), 3)
    0.151
    """
    ests = []
    for y in logs:
        if y.size >= 2:
            df = y.size - 1
            ests.append(float(np.var(y, ddof=1)) * df / _chi2_median(df))
    prior = (prior_sd if prior_sd is not None else log_sd(prior_cv)) ** 2
    if not ests:
        return math.sqrt(prior)
    k = len(ests)
    return math.sqrt((2 * prior + k * float(np.median(ests))) / (2 + k))


@functools.lru_cache(maxsize=64)
def _chi2_median(df: int) -> float:
    return float(stats.chi2.median(df))


def dominated_cells(st: Mapping[Cell, CellStats], layout: Layout, sure: float = 0.9) -> set[Cell]:
    """Thread counts without runs that cannot be the best, if run time is unimodal in the thread count.

    At each (contention, limit), with explicit thread counts only: a count
    ``k`` beyond two measured counts ``i`` (nearer) and ``j`` (between them)
    where ``j`` is slower than ``i`` with probability at least ``sure`` is
    dominated: the time only rises on that side.  A comparison involving a
    lone run (which might be outlying) counts as at most 90 % sure.

    Examples
    --------
    >>> lay = Layout.of([0.0], [1.0], ["1", "2", "4", "8"])
    >>> st = {c: CellStats(c, 2, 2, m, 0.05, 5) for c, m in zip(lay.cells[:3], (2.0, 1.0, 1.5))}
    >>> sorted(dominated_cells(st, lay))
    [(0.0, 1.0, '8')]
    """
    if len(layout.threads) < 3 or not all(t.isdigit() for t in layout.threads):
        return set()
    order = sorted(range(len(layout.threads)), key=lambda i: int(layout.threads[i]))
    out = set()
    for c in layout.contentions:
        for lim in layout.limits:
            row = [(c, lim, layout.threads[i]) for i in order]
            for k, cell in enumerate(row):
                if cell in st:
                    continue
                for side in (row[:k][::-1], row[k + 1:]):  # walking away from k
                    seen = [x for x in side if x in st]
                    if any(_slower(st[a], st[b]) >= sure for a, b in zip(seen, seen[1:])):
                        out.add(cell)  # b (farther from k) faster than a: rising towards k
    return out


def _slower(a: CellStats, b: CellStats) -> float:
    """Probability that ``a`` is slower than ``b`` (normal approximation; lone runs capped at 0.9)."""
    se = math.sqrt(a.sd_log**2 / a.used + b.sd_log**2 / b.used)
    p = float(stats.norm.cdf((a.mean_log - b.mean_log) / se))
    return min(p, 0.9) if min(a.used, b.used) < 2 else p
