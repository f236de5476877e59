"""Selection-aware choice of the best candidate (thread count, limit, worker count), runs resampled.

Picking the fastest of several candidates and then testing it flatters it (the
winner's curse).  :func:`best_choice` resamples the runs of every candidate
(bootstrap over runs, the experimental units) and reports how often each
candidate comes out best: the probability that it is the best given the
noise.  The headline states the chosen candidate with that probability.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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
    best = names[int(np.argmin([v.mean() for v in logs]))]
    single = [k for k, v in zip(names, logs) if v.size < 2]
    method = f"bootstrap over runs ({n_boot} draws)"
    if single:
        method += f"; {len(single)} candidate(s) with one run keep it in every draw (their probability is optimistic)"
    return BestChoice(best, {k: float(w) for k, w in zip(names, wins)}, {k: int(v.size) for k, v in zip(names, logs)},
                      method)
