"""The decisions an adaptive sweep resolves (knee, dead zones, best thread counts) from run-level data.

It needs no analysis layer (numpy, scipy and the shared statistics of
:mod:`throttlelab.stats`: the knee, the dead-zone rule and the noise prior the
analysis uses too), so the sweep runner can use it; the benchmark and the sweep
report analyse full grids and adaptive sweeps with this same code.

The run is the experimental unit: each run contributes one value, the log of
its wall time.  Per cell (contention, limit, threads):

* interference only ever adds time, so outlying runs are slow ones: runs more
  than ``3.5`` pooled standard deviations above the cell's median are set
  aside (cells of 3 runs or more; at least 2 are kept), and of two runs that
  differ by more than ``3.5 sqrt(2)`` standard deviations the slower one;
* the noise level is the cell's own standard deviation shrunk towards a pooled,
  robust one (a median of the cells' variances; 4 prior degrees of freedom), so
  noise may grow with the limit, and a single run borrows the pooled noise;
* the posterior of the cell's mean log time is Student-t (flat prior); a cell
  with a single run cannot tell whether that run was slowed by interference
  (which only ever adds time), so with probability ``outlier_prior`` its mean
  may lie up to 3x lower than the run says.

With ``model: smooth`` (the default) the cells' posterior is not taken one
cell at a time but from a model shared across the grid
(:mod:`~throttlelab.experiment.sweeps.adaptive.adaptive_model`: limit effect + thread
effect + an interaction smooth in the limit) fitted to the same run-level cell
means and noise; cells without runs are predicted from their neighbours.  There
no run is set aside and the lone-run shift is not used: every run is weighted by
how well the other cells predict it, under a contamination mixture
(:mod:`~throttlelab.experiment.sweeps.adaptive.adaptive_robust`, ``outlier_prior`` = the
chance that a run was slowed by interference, up to 3x).

Decisions, per contention level, on the *envelope* (the best thread count's
time at each limit), by the rules of :mod:`throttlelab.stats.limit_rules`;
``r = log(1 + resolution_pct/100)`` is the indifference zone: differences
smaller than the resolution are ties, either answer counts:

``knee``
    The smallest limit within ``knee_tolerance_pct`` of the best limit's time.
    A limit is an acceptable answer if its time is within ``tolerance + r`` of
    the best and every smaller limit is slower than ``tolerance - r``.
``dead_zone`` (each limit above the smallest)
    ``yes`` if the limit is more than ``dead_zone_threshold_pct`` slower than
    the best smaller limit; acceptable ``yes`` above ``threshold - r``, ``no``
    below ``threshold + r``.  A dead zone is a claim that needs evidence (and
    the best of many smaller limits is flattered by noise): the answer is
    ``yes`` only when the slowdown is more likely than not above ``threshold + r``.
``best_threads`` (each limit, when there are several thread counts)
    The fastest thread count; acceptable: within ``r`` of the fastest.

The *confidence* of an answer is its posterior probability of being acceptable
(Monte Carlo over ``draws`` joint draws of all cell means); the answer given is
the most probable one.  The *joint confidence* is the posterior probability
that every answer is acceptable together, read directly off the same draws
(no Bonferroni bound: the draws carry the decisions' dependence).  A decision
is *resolved* when its confidence reaches the spec's ``confidence`` and each
of its pivotal cells (those its answer hinges on) has ``min_replicates`` usable
runs; the sweep stops when the joint confidence reaches ``confidence`` and
every decision is resolved (:func:`decide_jointly`).  The same acceptability
rule applied to the true means gives the ground truth's acceptable answers
(:func:`~throttlelab.experiment.sweeps.adaptive.adaptive_answers.acceptable_answers`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from throttlelab.core.quantities import format_cores
from throttlelab.stats import dead_zone_margin
from throttlelab.experiment.sweeps.adaptive.adaptive_answers import acceptable, answer_text, dead_zone_slowdown
from throttlelab.experiment.sweeps.adaptive.adaptive_cells import (  # noqa: F401 - re-exported: one import for users
    AdaptiveSettings,
    Cell,
    CellStats,
    Layout,
    cell_label,
    cell_stats,
    dominated_cells,
    pooled_sd,
)


@dataclass(frozen=True)
class Decision:
    """One decision: its answer, confidence, and whether it is resolved."""

    kind: str  # knee | dead_zone | best_threads
    contention: float
    limit: float | None  # the limit it is about (knee: None)
    answer: str
    confidence: float
    resolved: bool
    pivotal: tuple[Cell, ...]
    runs_to_decide: int | None = None  # open decisions: rough runs per pivotal cell that would decide it
    target: float = 0.95  # the confidence this decision must reach (the spec's confidence)
    influence: tuple[tuple[Cell, float], ...] = ()  # cells whose mean sways the answer most, |correlation|
    contenders: tuple[Cell, ...] = ()  # cells of the answers with a posterior chance of at least 1%

    @property
    def subject(self) -> str:
        """``'knee'``, ``'dead zone at 1.5'``, ``'threads at 2'`` (with ``' | contention 0.5'``)."""
        base = {"knee": "knee", "dead_zone": f"dead zone at {format_cores(self.limit)}",
                "best_threads": f"threads at {format_cores(self.limit)}"}[self.kind]
        return base + (f" | contention {self.contention:g}" if self.contention else "")


@dataclass(frozen=True)
class Decided:
    """The decisions and the posterior probability that all of them are right together."""

    decisions: list[Decision]
    joint: float  # P(every answer acceptable), from the same draws as the single confidences
    confidence: float = 0.95  # the spec's confidence

    @property
    def confident(self) -> bool:
        """Every decision resolved and all right together with at least the spec's confidence."""
        return all(d.resolved for d in self.decisions) and self.joint >= self.confidence


def decide(observations: Mapping[Cell, Sequence[float]], layout: Layout,
           settings: AdaptiveSettings | None = None, *, seed: int = 0,
           dominance_sure: float = 0.9) -> list[Decision] | None:
    """Every decision with its answer and confidence; ``None`` while a cell has no usable run.

    The same as ``decide_jointly(...).decisions`` (see :func:`decide_jointly`).
    """
    both = decide_jointly(observations, layout, settings, seed=seed, dominance_sure=dominance_sure)
    return None if both is None else both.decisions


def decide_jointly(observations: Mapping[Cell, Sequence[float]], layout: Layout,
                   settings: AdaptiveSettings | None = None, *, seed: int = 0,
                   dominance_sure: float = 0.9) -> Decided | None:
    """Every decision with its answer and confidence, and their joint confidence; ``None`` as :func:`decide`.

    Parameters
    ----------
    observations
        Wall times (s) of the ok, non-warm-up runs per cell.
    layout
        The grid (every cell must have a run before anything is decided).
    seed
        Seed of the Monte Carlo draws (the same data give the same confidences).
    dominance_sure
        How sure an ordering of thread counts must be for a count without runs
        beyond it to be left out (:func:`dominated_cells`).
    """
    settings = settings or AdaptiveSettings()
    post = posterior_draws(observations, layout, settings, seed=seed, dominance_sure=dominance_sure)
    if post is None:
        return None
    st, x, point = post
    cells = layout.cells
    thr_hi = dead_zone_margin(settings.dead_zone_threshold_pct) + math.log1p(settings.resolution_pct / 100)
    flat = np.where(np.isinf(x), 0.0, x).reshape(settings.draws, len(cells))
    z = (flat - flat.mean(axis=0)) / np.maximum(flat.std(axis=0), 1e-12)
    decisions = []
    accepted = acceptable(x, layout, settings)
    target = settings.confidence
    all_right = np.ones(settings.draws, bool)
    for (kind, ci, li), acc in accepted.items():
        prob = acc.mean(axis=0)
        a = int(np.argmax(prob))
        if kind == "dead_zone":  # a claim needs evidence: 'yes' only if more likely than not clearly over
            clear = float((dead_zone_slowdown(x, ci, li) > thr_hi).mean())
            a = 0 if clear >= 0.5 else 1
        conf = float(prob[a])
        all_right &= acc[:, a]
        piv = _pivotal(kind, ci, li, a, point[0], layout)
        used = min(st[c].used if c in st else 0 for c in piv)
        resolved = conf >= target and used >= settings.min_replicates
        need = None
        if not resolved:
            z_now = stats.norm.ppf(min(max(conf, 0.5), 1 - 1e-9))
            z_goal = stats.norm.ppf(target)
            need = max(settings.min_replicates, math.ceil(used * (z_goal / z_now) ** 2)) if z_now > 0.1 else None
        infl: tuple[tuple[Cell, float], ...] = ()
        if not resolved:
            ok = acc[:, a].astype(float)
            corr = np.abs((ok - ok.mean()) @ z) / (settings.draws * max(float(ok.std()), 1e-12))
            top = np.argsort(-corr)[:4]
            infl = tuple((cells[i], float(corr[i])) for i in top if corr[i] > 0.02)
        cont: tuple[Cell, ...] = ()
        if not resolved and kind != "dead_zone":
            c = layout.contentions[ci]
            env_t = point[0, ci].argmin(axis=1)
            cont = tuple((c, layout.limits[li], layout.threads[i]) if kind == "best_threads"
                         else (c, layout.limits[i], layout.threads[env_t[i]])
                         for i in np.nonzero(prob >= 0.01)[0])
        decisions.append(Decision(kind, layout.contentions[ci], None if li < 0 else layout.limits[li],
                                  answer_text(kind, a, layout), conf, resolved, piv, need, target, infl, cont))
    return Decided(decisions, float(all_right.mean()), settings.confidence)


def posterior_draws(observations: Mapping[Cell, Sequence[float]], layout: Layout, settings: AdaptiveSettings,
                    *, seed: int = 0, dominance_sure: float = 0.9
                    ) -> tuple[dict[Cell, CellStats], np.ndarray, np.ndarray] | None:
    """``(cell stats, draws [draws, C, L, T] of the cells' mean log times, point estimates [1, C, L, T])``.

    Dominated thread counts without runs are ``inf`` (never the best); ``None``
    while a cell that is not dominated has no usable run.
    """
    st = cell_stats(observations, settings)
    cells = layout.cells
    rng = np.random.default_rng(seed)
    if settings.model == "smooth":
        from throttlelab.experiment.sweeps.adaptive.adaptive_model import smooth_draws
        from throttlelab.experiment.sweeps.adaptive.adaptive_robust import robust_stats

        fit_st = robust_stats(observations, st, layout, eps=settings.outlier_prior)  # runs judged by the other cells
        sm = smooth_draws(fit_st, layout, settings.draws, rng)
        if sm is None:
            return None
        x, mean, _ = sm
    else:
        skipped = dominated_cells(st, layout, dominance_sure)
        if any(c not in st and c not in skipped for c in cells):
            return None
        missing = np.array([c not in st for c in cells])
        mean = np.array([st[c].mean_log if c in st else 0.0 for c in cells])
        se = np.array([st[c].sd_log / math.sqrt(st[c].used) if c in st else 0.0 for c in cells])
        df = np.array([st[c].df if c in st else 1.0 for c in cells])
        x = mean + se * rng.standard_t(df, size=(settings.draws, len(cells)))
        x[:, missing] = np.inf  # dominated thread counts: never the best, never on the envelope
        mean = np.where(missing, np.inf, mean)
    lone = np.array([c in st and st[c].used == 1 for c in cells])
    if settings.model != "smooth" and settings.outlier_prior > 0 and lone.any():  # smooth: robust_stats
        hit = (rng.random((settings.draws, len(cells))) < settings.outlier_prior) & lone
        x -= hit * rng.uniform(0, math.log(3), size=hit.shape)
    return st, x.reshape(settings.draws, *layout.shape), mean.reshape(1, *layout.shape)


def _pivotal(kind: str, ci: int, li: int, answer: int, point: np.ndarray, layout: Layout) -> tuple[Cell, ...]:
    """The cells an answer hinges on (from the point estimates ``point[C, L, T]``)."""
    c = layout.contentions[ci]
    env_t = point[ci].argmin(axis=1)  # best thread index per limit
    env = point[ci].min(axis=1)

    def env_cell(lj: int) -> Cell:
        return (c, layout.limits[lj], layout.threads[env_t[lj]])

    if kind == "best_threads":
        order = np.argsort(point[ci, li], kind="stable")
        other = int(order[0] if order[0] != answer else order[1])
        return ((c, layout.limits[li], layout.threads[answer]), (c, layout.limits[li], layout.threads[other]))
    if kind == "dead_zone":
        return (env_cell(li), env_cell(int(np.argmin(env[:li]))))
    cells = [env_cell(answer), env_cell(int(np.argmin(env)))]
    if answer > 0:
        cells.append(env_cell(answer - 1))
    return tuple(dict.fromkeys(cells))
