"""Which cell an adaptive sweep runs next: initial order, a lone run out of line, pivotal cells short of runs, most doubt."""

from __future__ import annotations

import math
import random

from throttlelab.experiment.sweeps.adaptive.adaptive_cells import AdaptiveSettings, Cell, Layout, cell_stats
from throttlelab.experiment.sweeps.adaptive.adaptive_decisions import Decided, Decision
from throttlelab.experiment.sweeps.adaptive.adaptive_model import initial_cells

#: A cell whose runs failed this often gets no more.
MAX_FAILURES_PER_CELL = 3


def initial_order(layout: Layout, settings: AdaptiveSettings, seed: int) -> list[Cell]:
    """The initial design's cells (every cell; with ``model: smooth`` a connected half) in a seeded
    random order, the extreme thread counts last.

    Run time is taken to be unimodal in the thread count, so an extreme count beyond a clearly
    slower one is never run (:func:`~throttlelab.experiment.sweeps.adaptive.adaptive_decisions.dominated_cells`).
    """
    cells = list(layout.cells)
    if settings.model == "smooth":  # a connected half; the model predicts the rest
        cells = initial_cells(layout)
    random.Random(seed).shuffle(cells)
    numeric = [int(t) for t in layout.threads if t.isdigit()]
    if len(numeric) >= 3 and len(numeric) == len(layout.threads):
        ends = {str(min(numeric)), str(max(numeric))}
        cells.sort(key=lambda c: c[2] in ends)
    return cells


def lone_bump(times: dict[Cell, list[float]], attempts: dict[Cell, int], layout: Layout, settings: AdaptiveSettings,
              max_replicates: int, order: list[Cell]) -> tuple[Cell, str] | None:
    """A cell with a single run that is slower than both neighbours along threads or limits.

    Run time is unimodal in the thread count and falls with the limit
    (outside dead zones), so a lone run more than the resolution above both
    its neighbours is the likeliest place for an outlying run to hide a
    better cell: it gets a second run before anything else.  The initial
    design's cells are checked first (in ``order``), then every other cell:
    with ``model: smooth`` half the cells get their first run later.
    """
    margin = math.log1p(settings.resolution_pct / 100)
    lay = layout
    logs = {c: math.log(sum(v) / len(v)) for c, v in times.items() if v}
    for c in list(order) + [c for c in layout.cells if c not in order]:
        if len(times[c]) != 1 or attempts[c] >= max_replicates:
            continue
        share, lim, thr = c
        ti, li = lay.threads.index(thr), lay.limits.index(lim)
        for axis, pair in (("threads", [(share, lim, lay.threads[i]) for i in (ti - 1, ti + 1)
                                       if 0 <= i < len(lay.threads)]),
                           ("limits", [(share, lay.limits[i], thr) for i in (li - 1, li + 1)
                                       if 0 <= i < len(lay.limits)])):
            if len(pair) == 2 and all(p in logs for p in pair) and logs[c] - max(logs[p] for p in pair) > margin:
                return c, axis
    return None


def short_pivotal(decided: Decided, times: dict[Cell, list[float]], attempts: dict[Cell, int],
                  failures: dict[Cell, int], settings: AdaptiveSettings, max_replicates: int) -> tuple[Cell, Decision] | None:
    """Once the joint confidence is reached: a pivotal cell still short of ``min_replicates`` runs.

    A lone run may be an outlying one, and a sweep that stops on the first
    crossing of the confidence is optimistic; the cells the answers hinge on
    get ``min_replicates`` runs before the sweep stops (the least-run first).
    """
    if decided.joint < decided.confidence:
        return None
    st = cell_stats(times, settings)
    short = [(st[c].used if c in st else 0, c, d) for d in decided.decisions for c in d.pivotal
             if (st[c].used if c in st else 0) < settings.min_replicates
             and attempts[c] < max_replicates and failures[c] < MAX_FAILURES_PER_CELL]
    if not short:
        return None
    _, cell, d = min(short, key=lambda t: t[0])
    return cell, d


def doubtful_cell(open_: list[Decision], times: dict[Cell, list[float]], attempts: dict[Cell, int],
                  failures: dict[Cell, int], layout: Layout, settings: AdaptiveSettings,
                  max_replicates: int) -> tuple[Cell, Decision] | None:
    """The cell whose next run removes the most doubt, and the most doubtful decision it serves.

    A cell's score sums, over the open decisions, the decision's doubt
    (``1 - confidence``, at least 0.05) times the cell's influence on it (the
    absolute correlation, over the posterior draws, between the cell's mean
    and the answer being acceptable; 0.5 for a pivotal cell short of
    ``min_replicates``), divided by the cell's usable runs: a run halves the
    variance of a cell's mean at 1 run, but changes it little at 6.  Cells
    with ``max_replicates`` runs (or too many failures) get no more.
    """
    score: dict[Cell, float] = {}
    worst: dict[Cell, Decision] = {}
    for d in open_:
        doubt = max(1 - d.confidence, 0.05)  # short of runs but sure: an outlying run may hide
        weights = dict(d.influence)
        for c in d.contenders:
            weights[c] = 1.0
        for c in d.pivotal:
            if len(times[c]) < settings.min_replicates:
                weights[c] = max(weights.get(c, 0.0), 0.5)
        for c, w in weights.items():
            if attempts[c] >= max_replicates or failures[c] >= MAX_FAILURES_PER_CELL:
                continue
            score[c] = score.get(c, 0.0) + doubt * w / max(len(times[c]), 1)
            if c not in worst or d.confidence < worst[c].confidence:
                worst[c] = d
    if not score:
        return None
    cell = max(layout.cells, key=lambda c: score.get(c, -1.0))
    return cell, worst[cell]
