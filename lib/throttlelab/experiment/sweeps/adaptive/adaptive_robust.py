"""A robust likelihood for the shared model: each run weighted by how well the other cells predict it.

Run-to-run noise has heavy tails and interference adds slow outlying runs, so a
Gaussian likelihood lets one run move a cell's mean far; with one or two runs
per cell a within-cell rule ("set the slower of two runs aside") has to guess
which run is wrong.  Here each run's log time ``y`` is judged against the
cell's *leave-cell-out* prediction ``m`` (variance ``v``) from the model of
:mod:`~throttlelab.experiment.sweeps.adaptive.adaptive_model`, i.e. from the other
cells' runs, under a contamination mixture: with probability ``1 - eps`` the
run is ``m`` plus Student-t noise (``nu`` degrees of freedom, scale
``S = sqrt(s^2 + v)``, ``s`` the cell's run-to-run noise), with probability
``eps`` it was slowed by interference by a factor uniform on ``1..slow_max``
(interference only adds time).  A run's weight is its probability of being
a clean run times its Student-t weight ``min(1, (nu + 1) / (nu + z^2))``; the
cell enters the model as the weighted mean of its runs with ``sum(weights)``
runs' worth of precision.  Two passes: the second judges each cell by the
other cells' reweighted runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
from scipy import stats

from throttlelab.experiment.sweeps.adaptive.adaptive_cells import Cell, CellStats, Layout

ROBUST_DF = 4.0


def run_logs(observations: Mapping[Cell, Sequence[float]]) -> dict[Cell, np.ndarray]:
    """The log wall times of each cell's usable runs."""
    return {c: np.log(np.asarray([v for v in vals if v and v > 0], float)) for c, vals in observations.items()}


def run_weights(y: np.ndarray, predicted: float, scale: float, eps: float = 0.05, slow_max: float = 3.0,
                nu: float = ROBUST_DF) -> np.ndarray:
    """Weights in ``[0, 1]`` of runs ``y`` against a prediction (log scale) with total scale ``scale``.

    Examples
    --------
    >>> [round(float(w), 2) for w in run_weights(np.log([1.0, 1.05, 2.3, 0.6]), 0.0, 0.08)]
    [0.99, 0.99, 0.0, 0.11]
    """
    z = (y - predicted) / scale
    clean = (1 - eps) * stats.t.pdf(z, nu) / scale
    width = math.log(slow_max)
    slow = eps * (stats.norm.cdf(z) - stats.norm.cdf(z - width / scale)) / width
    return clean / (clean + slow) * np.minimum(1.0, (nu + 1) / (nu + z**2))


def reweighted_stats(logs: Mapping[Cell, np.ndarray], st: Mapping[Cell, CellStats], layout: Layout,
                     predicted: np.ndarray, variance: np.ndarray, eps: float = 0.05) -> dict[Cell, CellStats]:
    """Cell statistics with every run weighted against its leave-cell-out prediction (over ``layout.cells``).

    All runs count (none is set aside); ``used`` becomes the runs' total weight,
    ``mean_log`` their weighted mean and ``ss_log`` the weighted sum of squares.
    A cell the other cells say nothing about keeps its statistics.

    Examples
    --------
    >>> lay = Layout.of([0.0], [1.0], ["1"])
    >>> c = lay.cells[0]
    >>> logs = {c: np.log([10.0, 10.5, 25.0])}
    >>> st = {c: CellStats(c, 3, 2, float(np.log([10.0, 10.5]).mean()), 0.05, 5)}
    >>> out = reweighted_stats(logs, st, lay, np.array([np.log(10.2)]), np.array([0.02**2]))[c]
    >>> round(out.seconds, 1), round(out.used, 2)
    (10.2, 1.99)
    """
    index = {c: i for i, c in enumerate(layout.cells)}
    out = {}
    for cell, s in st.items():
        y = logs.get(cell)
        i = index.get(cell)
        if y is None or y.size == 0 or i is None or not np.isfinite(variance[i]):
            out[cell] = s
            continue
        w = run_weights(y, float(predicted[i]), math.sqrt(s.sd_log**2 + float(variance[i])), eps)
        if w.sum() < 1e-3:  # every run far from the prediction: the cell says something the others do not
            out[cell] = s
            continue
        mean = float((w * y).sum() / w.sum())
        out[cell] = replace(s, used=float(w.sum()), mean_log=mean, ss_log=float((w * (y - mean) ** 2).sum()))
    return out


def robust_stats(observations: Mapping[Cell, Sequence[float]], st: Mapping[Cell, CellStats], layout: Layout,
                 eps: float = 0.05, passes: int = 2) -> dict[Cell, CellStats]:
    """``st`` with each cell's runs reweighted against the other cells (see the module docstring)."""
    from throttlelab.experiment.sweeps.adaptive.adaptive_model import leave_cell_out

    logs = run_logs(observations)
    out = dict(st)
    for _ in range(passes):
        loo = leave_cell_out(out, layout)
        if loo is None:
            return dict(st)
        out = reweighted_stats(logs, st, layout, *loo, eps=eps)
    return out
