"""Per-limit effects on the log scale and the run-to-run noise model behind every test.

Run times are compared on the log scale: a difference of log means is a ratio
of geometric means, and run-to-run noise on a shared machine is roughly
multiplicative (a constant coefficient of variation), so one noise level
``sigma`` (standard deviation of log wall time) serves every limit.

The model is ``log(wall) = mu[limit] (+ block[experiment]) + e``,
``e ~ N(0, sigma^2)``, fitted by least squares:

* ``sigma`` is estimated from the replicates (residual degrees of freedom
  ``df > 0``): points with a single run contribute their mean only, points
  with several runs give the noise level for all (homoscedastic on the log
  scale is the stated assumption);
* with no replicate at all (``df == 0``) nothing in the data measures noise:
  a *prior* coefficient of variation (default :data:`~throttlelab.stats.noise_prior.PRIOR_CV`, 20%, the
  one prior the adaptive sweep assumes too) is used, ``df = inf`` and every
  result is marked ``assumption_based``;
* with ``block`` (e.g. ``"experiment"``), each block (a separate experiment
  repeated later) may be uniformly faster or slower; the limit means are then
  expressed in the reference block (the one with most runs).  Blocks that
  share no limit with the others cannot be separated from the limits and make
  the block model unidentifiable: then the model falls back to no block.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from throttlelab.stats import PRIOR_CV, cv_of_log_sd, log_sd


@dataclass(frozen=True)
class NoiseModel:
    """Run-to-run noise on the log scale.

    Attributes
    ----------
    sigma
        Standard deviation of log wall time (about the coefficient of variation).
    df
        Degrees of freedom of ``sigma`` (``inf`` for a prior).
    source
        ``"replicates"``, ``"replicates, block=<col>"`` or ``"prior cv"``.
    assumption_based
        True when ``sigma`` is a stated prior, not measured.
    replicated_limits
        Limits with more than one run (the points that measure noise).
    note
        How the noise was modelled (e.g. a trend over the limits), when a reader needs it.
    """

    sigma: float
    df: float
    source: str
    assumption_based: bool
    replicated_limits: int
    note: str = ""

    @property
    def cv_pct(self) -> float:
        """Noise as a coefficient of variation in percent."""
        return 100.0 * cv_of_log_sd(self.sigma)


@dataclass(frozen=True)
class LimitEffects:
    """Least-squares limit means on the log scale, their covariance and the noise model."""

    order: np.ndarray  # sorted limit_order values (inf = unlimited)
    mean_log: np.ndarray  # estimated mean log wall time per limit
    cov_unscaled: np.ndarray  # covariance of mean_log / sigma^2
    n: np.ndarray  # runs per limit
    noise: NoiseModel
    block: str | None = None
    block_effects: dict = field(default_factory=dict)  # block -> log offset vs reference
    design: np.ndarray | None = None  # model matrix (runs x (limits + blocks)), for per-level noise
    level_index: np.ndarray | None = None  # limit position (index into ``order``) of each run


def estimate_effects(
    order: np.ndarray,
    log_y: np.ndarray,
    blocks: np.ndarray | None = None,
    *,
    block_name: str | None = None,
    prior_cv: float = PRIOR_CV,
) -> LimitEffects:
    """Fit ``log y ~ limit (+ block)`` and estimate the noise.

    Parameters
    ----------
    order
        Limit position of each run (any sortable numbers; ``inf`` allowed).
    log_y
        Log wall time of each run.
    blocks
        Optional block label of each run (e.g. experiment name).
    prior_cv
        Coefficient of variation assumed when no limit is replicated.
    """
    order = np.asarray(order, float)
    log_y = np.asarray(log_y, float)
    levels, idx = np.unique(order, return_inverse=True)
    counts = np.bincount(idx, minlength=len(levels))
    X = np.zeros((len(log_y), len(levels)))
    X[np.arange(len(log_y)), idx] = 1.0
    note = ""
    block_levels: list = []
    if blocks is not None:
        block_levels = _connected_blocks(idx, np.asarray(blocks))
        if block_levels is None:
            note = f"block {block_name!r} ignored: a block shares no limit with the others"
            block_levels = []
        elif len(block_levels) > 1:
            bl = np.asarray(blocks)
            extra = np.column_stack([(bl == b).astype(float) for b in block_levels[1:]])
            X = np.hstack([X, extra])
    coef, *_ = np.linalg.lstsq(X, log_y, rcond=None)
    resid = log_y - X @ coef
    rank = np.linalg.matrix_rank(X)
    df = len(log_y) - rank
    xtx_inv = np.linalg.pinv(X.T @ X)
    J = len(levels)
    replicated = int((counts > 1).sum())
    if df > 0:
        sigma = float(np.sqrt(resid @ resid / df))
        source = "replicates" + (f", block={block_name}" if len(block_levels) > 1 else "")
        noise = NoiseModel(sigma, float(df), source, False, replicated, note)
    else:
        sigma = log_sd(prior_cv)
        noise = NoiseModel(
            sigma, math.inf, "prior cv", True, replicated,
            (note + "; " if note else "") + f"no replicates: assumed {100 * prior_cv:.0f}% run-to-run noise",
        )
    effects = {}
    if len(block_levels) > 1:
        effects = {str(block_levels[0]): 0.0} | {str(b): float(c) for b, c in zip(block_levels[1:], coef[J:])}
    return LimitEffects(
        order=levels,
        mean_log=coef[:J],
        cov_unscaled=xtx_inv[:J, :J],
        n=counts,
        noise=noise,
        block=block_name if len(block_levels) > 1 else None,
        block_effects=effects,
        design=X,
        level_index=idx,
    )


def _connected_blocks(limit_idx: np.ndarray, blocks: np.ndarray) -> list | None:
    """Block levels (reference first: most runs) if all blocks are linked by shared limits, else None."""
    names, counts = np.unique(blocks, return_counts=True)
    if len(names) < 2:
        return list(names)
    limits_of = {b: set(limit_idx[blocks == b]) for b in names}
    ordered = [names[i] for i in np.argsort(-counts, kind="stable")]
    seen, frontier = {ordered[0]}, [ordered[0]]
    while frontier:
        b = frontier.pop()
        for other in names:
            if other not in seen and limits_of[b] & limits_of[other]:
                seen.add(other)
                frontier.append(other)
    return ordered if len(seen) == len(names) else None
