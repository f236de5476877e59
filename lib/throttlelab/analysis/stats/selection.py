"""Selection-aware choice of the best candidate (thread count, limit, worker count), runs resampled.

Picking the fastest of several candidates and then testing it flatters it (the
winner's curse).  :func:`best_choice` resamples the runs of every candidate
(bootstrap over runs, the experimental units) and reports how often each
candidate comes out best: the probability that it is the best given the
noise.  The headline states the chosen candidate with that probability.
Where each level's run-to-run noise is measured (thread counts at one limit),
:func:`posterior_best` gives the same probability from that noise, and
:func:`worse_than_best` the adjusted p-values of "slower than the best".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from throttlelab.core.ordering import argbest


@dataclass(frozen=True)
class BestChoice:
    """The best of several candidates, with the probability that each one is the best.

    Attributes
    ----------
    best
        Candidate with the lowest geometric-mean time.
    probability_best
        Candidate -> share of run bootstraps in which it is the fastest.
    runs
        Candidate -> runs behind it.
    method
        How the probabilities were computed.
    """

    best: str
    probability_best: dict[str, float]
    runs: dict[str, int]
    method: str


def best_choice(candidates: dict[str, np.ndarray], *, n_boot: int = 2000, seed: int = 0) -> BestChoice:
    """Bootstrap over runs: resample each candidate's runs, take the fastest geometric mean, count.

    Candidates with one run keep it in every draw (no noise of their own is measured: their probability
    is then optimistic, which ``method`` says).
    """
    names = list(candidates)
    logs = [np.log(np.asarray(candidates[k], float)) for k in names]
    rng = np.random.default_rng(seed)
    means = np.column_stack([v[rng.integers(0, v.size, (n_boot, v.size))].mean(axis=1) for v in logs])
    wins = np.bincount(np.argmin(means, axis=1), minlength=len(names)) / n_boot
    best = names[argbest([v.mean() for v in logs])]
    single = [k for k, v in zip(names, logs) if v.size < 2]
    method = f"bootstrap over runs ({n_boot} draws)"
    if single:
        method += f"; {len(single)} candidate(s) with one run keep it in every draw (their probability is optimistic)"
    return BestChoice(best, {k: float(w) for k, w in zip(names, wins)}, {k: int(v.size) for k, v in zip(names, logs)},
                      method)


@lru_cache(maxsize=256)
def _pairwise_max_null(n: tuple[int, ...], df: float, n_sim: int, seed: int) -> np.ndarray:
    """Sorted draws of ``max_{i,j} (e_i - e_j) / sqrt(1/n_i + 1/n_j) / s*`` (unit noise, ``s*`` from chi-square)."""
    rng = np.random.default_rng(seed)
    nn = np.asarray(n, float)
    e = rng.standard_normal((n_sim, nn.size)) / np.sqrt(nn)[None, :]
    se = np.sqrt(1 / nn[:, None] + 1 / nn[None, :])
    np.fill_diagonal(se, np.inf)
    stat = ((e[:, :, None] - e[:, None, :]) / se[None]).max(axis=(1, 2))
    sd = np.ones(n_sim) if not math.isfinite(df) else np.sqrt(rng.chisquare(df, n_sim) / df)
    return np.sort(stat / sd)


def pairwise_max_null(n_runs, df: float, *, n_sim: int = 20000, seed: int = 0) -> np.ndarray:
    """Sorted simulated largest studentised pairwise gaps of settings with ``n_runs`` runs each, all equal (unit
    noise with ``df`` degrees of freedom): the null of Tukey-Kramer's studentised range."""
    return _pairwise_max_null(tuple(int(x) for x in n_runs), float(df), n_sim, seed)


def worse_than_best(mean_log: np.ndarray, n: np.ndarray, sigma: float, df: float, *, n_sim: int = 20000,
                    seed: int = 0) -> np.ndarray:
    """Adjusted p-values of "candidate k is slower than the fastest-looking one" (the best re-picked in every draw).

    The statistic of ``k`` is ``(m_k - m_best) / (sigma sqrt(1/n_k + 1/n_best))``; its null is the largest
    studentised pairwise difference of ``len(n)`` equal candidates (Tukey-Kramer's studentised range, simulated with
    the noise's own degrees of freedom).  Every "k is worse than the best" claim is then made with family-wise
    error at most the level, whatever the true order, and the best itself has p = 1.
    """
    m = np.asarray(mean_log, float)
    nn = np.asarray(n, float)
    b = argbest(m)
    t = (m - m[b]) / (sigma * np.sqrt(1 / nn + 1 / nn[b]))
    null = _pairwise_max_null(tuple(int(x) for x in nn), float(df), n_sim, seed)
    p = (n_sim - np.searchsorted(null, t, side="left") + 1) / (n_sim + 1)
    p[b] = 1.0
    return np.minimum(p, 1.0)


def worse_than_best_critical(n: np.ndarray, df: float, alpha: float, *, n_sim: int = 20000, seed: int = 0) -> float:
    """The studentised gap above which :func:`worse_than_best` (same ``n``, ``df``, ``n_sim``, ``seed``) gives p < alpha.

    ``gap +- critical x se`` is then the simultaneous (Tukey-Kramer) interval of a count against the best that
    excludes 0 exactly when its adjusted p-value is below ``alpha``: interval and verdict agree.
    """
    null = _pairwise_max_null(tuple(int(x) for x in np.asarray(n)), float(df), n_sim, seed)
    # p(t) = (#{null >= t} + 1) / (n_sim + 1) < alpha  <=>  #{null >= t} <= k  <=>  t > the (k+1)-th largest draw
    k = math.ceil(alpha * (n_sim + 1)) - 2
    return float(null[n_sim - k - 1]) if k >= 0 else math.inf


def posterior_best(mean_log: np.ndarray, n: np.ndarray, sigma: float, df: float, *, n_draws: int = 4000,
                   seed: int = 0) -> np.ndarray:
    """Probability that each candidate has the lowest true mean, from the measured noise of its level.

    Flat prior on the means, ``sigma^2`` drawn as ``s^2 df / chi^2_df`` (its own uncertainty): each candidate's
    mean is ``m_k + sigma* z / sqrt(n_k)``.  With zero noise the fastest (ties shared) has probability 1.
    """
    m = np.asarray(mean_log, float)
    nn = np.asarray(n, float)
    if not sigma > 0:
        best = m == m.min()
        return best / best.sum()
    rng = np.random.default_rng(seed)
    sd = sigma * (np.ones(n_draws) if not math.isfinite(df) else np.sqrt(df / rng.chisquare(df, n_draws)))
    draws = m[None, :] + sd[:, None] * rng.standard_normal((n_draws, m.size)) / np.sqrt(nn)[None, :]
    return np.bincount(np.argmin(draws, axis=1), minlength=m.size) / n_draws
