"""The answers a decision accepts: for each posterior draw of the cell means, or for the ground truth's true times.

Decisions per contention level, on the *envelope* (the best thread count's time at each limit);
``r = log(1 + resolution_pct/100)`` is the indifference zone (see
:mod:`~throttlelab.experiment.sweeps.adaptive.adaptive_decisions` for the rules in words).  The knee and the
dead-zone rule are the analysis's own, from :mod:`throttlelab.stats.limit_rules`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from throttlelab.core.quantities import format_cores
from throttlelab.experiment.sweeps.adaptive.adaptive_cells import AdaptiveSettings, Cell, Layout
from throttlelab.stats import dead_zone_answers, knee_answers, slowdown_over_lower


def acceptable(x: np.ndarray, layout: Layout, settings: AdaptiveSettings) -> dict[tuple, np.ndarray]:
    """Acceptable answers per decision for each draw: ``x`` is ``[draws, C, L, T]`` of log times.

    Returns ``{(kind, c_index, l_index): bool array [draws, answers]}``; answers are
    limit indices (knee), ``[yes, no]`` (dead zone) or thread indices.
    """
    r = math.log1p(settings.resolution_pct / 100)
    env = x.min(axis=3)  # [S, C, L]
    out: dict[tuple, np.ndarray] = {}
    n_c, n_l, n_t = layout.shape
    for ci in range(n_c):
        e = env[:, ci, :]
        out[("knee", ci, -1)] = knee_answers(e, settings.knee_tolerance_pct, settings.resolution_pct)
        slow = slowdown_over_lower(e)
        for li in range(1, n_l):
            out[("dead_zone", ci, li)] = dead_zone_answers(slow[:, li], settings.dead_zone_threshold_pct,
                                                           settings.resolution_pct)
        if n_t > 1:
            for li in range(n_l):
                xt = x[:, ci, li, :]
                out[("best_threads", ci, li)] = xt <= xt.min(axis=1, keepdims=True) + r
    return out


def answer_text(kind: str, index: int, layout: Layout) -> str:
    """An answer as it is written: a limit (knee), ``yes``/``no`` (dead zone) or a thread count."""
    if kind == "knee":
        return format_cores(layout.limits[index])
    if kind == "dead_zone":
        return ("yes", "no")[index]
    return layout.threads[index]


def acceptable_answers(true_seconds: Mapping[Cell, float], layout: Layout,
                       settings: AdaptiveSettings | None = None) -> dict[tuple[str, float, float | None], set[str]]:
    """The answers the ground truth accepts, per decision ``(kind, contention, limit)``."""
    settings = settings or AdaptiveSettings()
    x = np.log(np.array([true_seconds[c] for c in layout.cells], float)).reshape(1, *layout.shape)
    out = {}
    for (kind, ci, li), acc in acceptable(x, layout, settings).items():
        key = (kind, layout.contentions[ci], None if li < 0 else layout.limits[li])
        out[key] = {answer_text(kind, a, layout) for a in np.nonzero(acc[0])[0]}
    return out


def dead_zone_slowdown(x: np.ndarray, ci: int, li: int) -> np.ndarray:
    """Log slowdown of limit ``li`` over the best smaller limit, per draw (envelope over threads)."""
    return slowdown_over_lower(x[:, ci].min(axis=2))[:, li]
