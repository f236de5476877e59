"""The knee and the dead-zone rule of a limit sweep, on log times: one definition for the analysis and the sweep.

Both rules read the run times of consecutive CPU limits (smallest first, along
the last axis of an array, so one call serves a single curve or thousands of
posterior or simulated draws at once) on the log scale, where a ratio of times
is a difference:

knee
    The smallest limit whose time is within ``tolerance_pct`` of the best
    (fastest) limit's: beyond it more CPU buys less than ``tolerance_pct``
    (:func:`knee_index`).
dead zone
    A limit slower than the best *smaller* limit by more than
    ``threshold_pct``: more CPU, yet slower (:func:`slowdown_over_lower`,
    :func:`dead_zone_margin`).

Where differences below ``resolution_pct`` count as ties (an indifference zone
of ``r = log(1 + resolution_pct / 100)``), either answer near a boundary is
acceptable: :func:`knee_answers` and :func:`dead_zone_answers`.  With
``resolution_pct = 0`` they reduce to the plain rules: the knee alone, and a
dead zone exactly when the slowdown exceeds the threshold.  The analysis
(:mod:`throttlelab.analysis.limits`) tests these against run-to-run noise; the
adaptive sweep (:mod:`throttlelab.experiment.sweeps.adaptive`) asks how probable
each answer is.  Both ask about the same knee and the same dead zones.
"""

from __future__ import annotations

import math

import numpy as np

#: The knee's default tolerance (%): the smallest limit within 10 % of the best time.
KNEE_TOLERANCE_PCT = 10.0


def knee_index(log_times: np.ndarray, tolerance_pct: float = KNEE_TOLERANCE_PCT) -> np.ndarray:
    """Index of the knee along the last axis: the first limit within ``tolerance_pct`` of the best time.

    Examples
    --------
    >>> import numpy as np
    >>> int(knee_index(np.log([40.0, 21.0, 20.0, 20.5]), 10))
    1
    >>> knee_index(np.log([[40.0, 21.0, 20.0], [40.0, 30.0, 20.0]]), 10).tolist()
    [1, 2]
    """
    lt = np.asarray(log_times, float)
    within = lt <= lt.min(axis=-1, keepdims=True) + math.log1p(tolerance_pct / 100)
    return within.argmax(axis=-1)


def knee_answers(log_times: np.ndarray, tolerance_pct: float = KNEE_TOLERANCE_PCT,
                 resolution_pct: float = 0.0) -> np.ndarray:
    """Which limits are acceptable knees (a boolean array like ``log_times``), differences below
    ``resolution_pct`` being ties: within ``tolerance + r`` of the best, and every smaller limit slower than
    ``tolerance - r``.  With ``resolution_pct = 0``: the knee of :func:`knee_index` alone.

    Examples
    --------
    >>> import numpy as np
    >>> knee_answers(np.log([40.0, 21.0, 20.0, 20.5]), 10).tolist()
    [False, True, False, False]
    >>> knee_answers(np.log([40.0, 23.0, 20.0, 20.5]), 10, resolution_pct=5).tolist()
    [False, True, True, False]
    """
    lt = np.asarray(log_times, float)
    r = math.log1p(resolution_pct / 100)
    tol = math.log1p(tolerance_pct / 100)
    best = lt.min(axis=-1, keepdims=True)
    within = lt <= best + tol + r
    above = lt > best + tol - r
    first = np.ones((*lt.shape[:-1], 1), bool)
    smaller_all_above = np.cumprod(np.concatenate([first, above[..., :-1]], axis=-1), axis=-1).astype(bool)
    return within & smaller_all_above


def best_lower(log_times: np.ndarray) -> np.ndarray:
    """Index of the best (fastest) smaller limit of each limit along the last axis; of tied ones the first.
    The smallest limit has none: its own index, 0.

    Examples
    --------
    >>> import numpy as np
    >>> best_lower(np.log([30.0, 20.0, 25.0, 20.0, 22.0])).tolist()
    [0, 0, 1, 1, 1]
    """
    lt = np.asarray(log_times, float)
    out = np.zeros(lt.shape, dtype=int)
    best = np.zeros(lt.shape[:-1], dtype=int)
    for j in range(1, lt.shape[-1]):
        better = lt[..., j - 1] < np.take_along_axis(lt, best[..., None], axis=-1)[..., 0]
        best = np.where(better, j - 1, best)
        out[..., j] = best
    return out


def slowdown_over_lower(log_times: np.ndarray) -> np.ndarray:
    """Each limit's log slowdown over its best smaller limit (:func:`best_lower`) along the last axis; 0 for the
    smallest limit.  A dead zone is a slowdown above :func:`dead_zone_margin`.

    Examples
    --------
    >>> import numpy as np
    >>> np.round(np.expm1(slowdown_over_lower(np.log([30.0, 20.0, 25.0, 19.0]))), 3).tolist()
    [0.0, -0.333, 0.25, -0.05]
    """
    lt = np.asarray(log_times, float)
    return lt - np.take_along_axis(lt, best_lower(lt), axis=-1)


def dead_zone_margin(threshold_pct: float) -> float:
    """The dead-zone threshold on the log scale: a limit is in a dead zone when its slowdown over its best smaller
    limit (:func:`slowdown_over_lower`) exceeds ``log(1 + threshold_pct / 100)``.

    >>> round(dead_zone_margin(10), 6)
    0.09531
    """
    return math.log1p(threshold_pct / 100.0)


def dead_zone_answers(slowdown: np.ndarray, threshold_pct: float, resolution_pct: float = 0.0) -> np.ndarray:
    """Whether ``yes`` and ``no`` are acceptable answers to "is this limit in a dead zone?" for each log
    ``slowdown``: ``[..., 2]`` booleans, differences below ``resolution_pct`` being ties.

    Examples
    --------
    >>> import numpy as np
    >>> dead_zone_answers(np.log([1.30, 1.08, 1.0]), 10, resolution_pct=5).tolist()
    [[True, False], [True, True], [False, True]]
    """
    s = np.asarray(slowdown, float)
    thr, r = dead_zone_margin(threshold_pct), math.log1p(resolution_pct / 100)
    return np.stack([s > thr - r, s < thr + r], axis=-1)
