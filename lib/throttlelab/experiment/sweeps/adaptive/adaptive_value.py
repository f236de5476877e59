"""Value of one more run per cell: the expected gain in the chance that every decision is right.

A knowledge-gradient step on the posterior of
:mod:`~throttlelab.experiment.sweeps.adaptive.adaptive_decisions`.  Today's answers are
right together with probability ``P = mean over draws of prod_d acc_d[answer_d]``.
One more run at cell ``c`` would give ``y = mu_c + e`` (``e`` the cell's run-to-run
noise); given ``y`` the posterior draws are reweighted by the likelihood of
``y``, each decision takes its most probable answer under the new weights (a dead
zone: ``yes`` only if clearly over the threshold, as in ``decide``) and ``P`` is
recomputed.  The value of the run is the mean of the new ``P`` over ``y`` drawn
from the predictive, minus today's ``P``.  Common random numbers (the same
draws and the same standardised ``y`` for every cell) keep the comparison
between cells fair.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from throttlelab.experiment.sweeps.adaptive.adaptive_answers import acceptable, dead_zone_slowdown
from throttlelab.experiment.sweeps.adaptive.adaptive_decisions import AdaptiveSettings, Cell, Layout, posterior_draws
from throttlelab.stats import dead_zone_margin


@dataclass(frozen=True)
class RunValue:
    """What one more run at ``cell`` is expected to do."""

    cell: Cell
    gain: float  # expected rise of P(every decision right)
    now: float  # P(every decision right) today


def run_values(observations: Mapping[Cell, Sequence[float]], layout: Layout, settings: AdaptiveSettings,
               candidates: Sequence[Cell], *, seed: int = 0, outcomes: int = 8) -> list[RunValue] | None:
    """The value of one more run at each candidate cell (``None`` while ``decide`` would return ``None``).

    Parameters
    ----------
    candidates
        Cells that may get another run (they need a usable run already).
    outcomes
        How many simulated results ``y`` per cell (stratified over the predictive).

    Examples
    --------
    >>> lay = Layout.of([0.0], [1.0, 2.0], ["1", "2"])
    >>> obs = {(0.0, 1.0, "1"): [10.0], (0.0, 1.0, "2"): [10.2], (0.0, 2.0, "1"): [10.1], (0.0, 2.0, "2"): [5.0]}
    >>> vals = run_values(obs, lay, AdaptiveSettings(draws=500), list(obs))
    >>> max(vals, key=lambda v: v.gain).gain > 0
    True
    """
    post = posterior_draws(observations, layout, settings, seed=seed)
    if post is None:
        return None
    st, x, _ = post
    n_draws = x.shape[0]
    acc = acceptable(x, layout, settings)
    thr_hi = dead_zone_margin(settings.dead_zone_threshold_pct) + math.log1p(settings.resolution_pct / 100)
    keys = list(acc)
    blocks = [acc[k].astype(float) for k in keys]
    clear = {k: (dead_zone_slowdown(x, k[1], k[2]) > thr_hi).astype(float) for k in keys if k[0] == "dead_zone"}

    def p_all(w: np.ndarray) -> np.ndarray:
        """P(every decision right) under weights ``w [K, S]`` (rows sum to 1)."""
        right = np.ones_like(w)
        for k, b in zip(keys, blocks):
            if k[0] == "dead_zone":
                a = np.where(w @ clear[k] >= 0.5, 0, 1)
            else:
                a = np.argmax(w @ b, axis=1)
            right *= b[:, a].T
        return (w * right).sum(axis=1)

    now = float(p_all(np.full((1, n_draws), 1.0 / n_draws))[0])
    rng = np.random.default_rng(seed + 7)
    pick = rng.integers(0, n_draws, size=outcomes)
    z = (np.arange(outcomes) + rng.random(outcomes)) / outcomes
    z = np.sqrt(2) * _erfinv(2 * z - 1)  # stratified standard normal noise
    flat = x.reshape(n_draws, -1)
    index = {c: i for i, c in enumerate(layout.cells)}
    out = []
    for cell in candidates:
        mu = flat[:, index[cell]]
        if not np.isfinite(mu).all():
            continue
        if cell in st:
            sd = st[cell].sd_log
        else:  # no run yet: the run-to-run noise of its limit
            same = [s.sd_log for c, s in st.items() if c[1] == cell[1]] or [s.sd_log for s in st.values()]
            sd = float(np.mean(same))
        y = mu[pick] + sd * z  # [K]
        logw = -0.5 * ((y[:, None] - mu[None, :]) / sd) ** 2
        w = np.exp(logw - logw.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        out.append(RunValue(cell, float(p_all(w).mean()) - now, now))
    return out


def _erfinv(v: np.ndarray) -> np.ndarray:
    from scipy.special import erfinv

    return erfinv(np.clip(v, -1 + 1e-12, 1 - 1e-12))
