"""Outlying runs: flagged against the robust run-to-run scale of their level (and its neighbours), never silently dropped."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Robust z above which a run is flagged as outlying (|log deviation from its level median| / robust scale).
OUTLIER_Z = 4.0
#: Fewest within-level pairs of runs for a robust scale worth flagging against.
MIN_PAIRS = 6


@dataclass(frozen=True)
class OutlyingRun:
    """A run far from the other runs at its level (flagged, shown, left out of the robust estimate).

    Attributes
    ----------
    level
        Level (limit, configuration, worker count) of the run, as text.
    run
        Run id (or position) of the run.
    value
        The run's summary (e.g. seconds).
    deviation_pct
        Run summary against its level's median, percent.
    robust_z
        |log deviation| over the robust within-level scale.
    """

    level: str
    run: str
    value: float
    deviation_pct: float
    robust_z: float


def robust_scale(groups: list[np.ndarray]) -> tuple[float, int]:
    """Robust run-to-run scale (sd of log values) from pairwise differences within levels, and the pair count.

    ``median |x_i - x_j| / (sqrt(2) * 0.6745)`` over all pairs of runs at the same level: one outlying
    run spoils only the pairs it is in, not the median.
    """
    diffs = [abs(a - b) for g in groups for i, a in enumerate(g) for b in g[i + 1:]]
    if not diffs:
        return float("nan"), 0
    return float(np.median(diffs) / (math.sqrt(2) * 0.6745)), len(diffs)


def flag_outliers(groups: dict[str, np.ndarray], run_ids: dict[str, list[str]] | None = None, *,
                  values: dict[str, np.ndarray] | None = None, z: float = OUTLIER_Z,
                  neighbours: int | None = None) -> list[OutlyingRun]:
    """Runs whose log summary is more than ``z`` robust scales from their level's median (levels with >= 3 runs).

    ``groups`` maps level -> log run summaries; with two runs a level cannot say which one is off, so
    nothing is flagged there.  With ``neighbours`` (ordered levels, e.g. CPU limits) each level's scale
    comes from its own pairs and those of the ``neighbours`` levels either side, so noise that grows
    along the levels is not mistaken for outlying runs.
    """
    keys = list(groups)
    arrays = [np.asarray(groups[k], float) for k in keys]
    out: list[OutlyingRun] = []
    for i, (level, g) in enumerate(zip(keys, arrays)):
        if g.size < 3:
            continue
        near = arrays if neighbours is None else arrays[max(0, i - neighbours): i + neighbours + 1]
        scale, pairs = robust_scale(near)
        if not math.isfinite(scale) or scale <= 0 or pairs < MIN_PAIRS:
            continue
        med = float(np.median(g))
        for j, v in enumerate(g):
            rz = abs(v - med) / scale
            if rz > z:
                rid = run_ids[level][j] if run_ids else str(j)
                raw = float(values[level][j]) if values else float(math.exp(v))
                out.append(OutlyingRun(str(level), str(rid), raw, 100 * math.expm1(v - med), float(rz)))
    return out
