"""Adaptive sweeps (``design: adaptive``): choose each next run where a decision is still uncertain.

The design, given the runs already stored (so it resumes like a grid sweep):

1. warm-up runs as the grid would do them (``warmup``);
2. the initial design: with ``model: smooth`` (the default) a connected half
   of the cells (:func:`~throttlelab.experiment.sweeps.adaptive.adaptive_model.initial_cells`),
   whose model predicts the rest; with ``model: cells`` every cell once, the
   extreme thread counts last, leaving out a thread count beyond a clearly
   slower one (run time is taken to be unimodal in the thread count,
   ``dominated_cells``);
3. a lone run slower than both its neighbours gets a second run (it may be
   an outlying run hiding the best cell);
4. then, one run at a time, at the cell whose run is worth most: the expected
   rise in the probability that every decision is right
   (:mod:`~throttlelab.experiment.sweeps.adaptive.adaptive_value`); when no run is
   expected to change anything, the cell with the most doubt of the open
   decisions (:func:`~.adaptive_choice.doubtful_cell`); a cell stops at
   ``max_replicates`` runs;
5. it stops when the answers are right together with the spec's
   ``confidence`` (default 95 %: the joint posterior probability that every
   decision is acceptable, :func:`~throttlelab.experiment.sweeps.adaptive.adaptive_decisions.decide_jointly`)
   and each decision's pivotal cells have ``min_replicates`` runs (once the
   joint confidence is reached, those cells are run first); or when the budget
   is spent (default: ``DEFAULT_BUDGET_SHARE`` of the full grid's runs, at
   least one per cell); or when no decision's cell can get another run.
   Clear scenarios stop early, unclear ones spend up to the budget.

Each run's row records why it was chosen (``chosen_because``).  Run ids are
the grid's ids (``replicate`` = how many runs the cell already had), so a grid
and an adaptive sweep of the same spec share their runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import polars as pl

from throttlelab.experiment.sweeps.adaptive.adaptive_choice import (
    MAX_FAILURES_PER_CELL,
    doubtful_cell,
    initial_order,
    lone_bump,
    short_pivotal,
)
from throttlelab.experiment.sweeps.adaptive.adaptive_decisions import (
    Cell,
    Decided,
    Decision,
    Layout,
    cell_label,
    cell_stats,
    decide_jointly,
    dominated_cells,
)
from throttlelab.experiment.sweeps.adaptive.adaptive_value import RunValue, run_values
from throttlelab.experiment.sweeps.plan import Contention, RunPlan
from throttlelab.experiment.sweeps.spec_file import DEFAULT_BUDGET_SHARE

if TYPE_CHECKING:
    from throttlelab.experiment.sweeps.spec import SweepSpec


@dataclass
class AdaptiveStatus:
    """Where an adaptive sweep stands: its decisions and why it stopped (or did not yet)."""

    decisions: list[Decision] | None
    runs_used: int
    budget: int
    grid_runs: int
    finished: bool
    stop_reason: str
    open: list[Decision] = field(default_factory=list)
    joint: float | None = None  # P(every decision right together), from the run-level posterior
    confident: bool = False  # stopped because the joint confidence was reached


class AdaptiveDesign:
    """The sequential design of one spec (see the module docstring).

    Parameters
    ----------
    spec
        A spec with ``design: adaptive``.
    runs
        The experiment's stored runs table (rows of other specs are ignored).
    """

    def __init__(self, spec: SweepSpec, runs: pl.DataFrame | None = None):
        self.spec = spec
        self.settings = spec.adaptive
        self.layout = Layout.of([c.share for c in spec.contention], spec.limits, spec.threads)
        self._contention = {c.share: c for c in spec.contention}
        self.hash = spec.config_hash()
        self.grid_runs = len(self.layout.cells) * spec.replicates
        self.budget = self.settings.budget or max(math.ceil(self.grid_runs * DEFAULT_BUDGET_SHARE),
                                                  len(self.layout.cells))
        self.max_replicates = self.settings.max_replicates or 3 * spec.replicates
        self.order = initial_order(self.layout, self.settings, spec.seed)  # the initial design's cells, in run order
        self.attempts: dict[Cell, int] = {c: 0 for c in self.layout.cells}
        self.failures: dict[Cell, int] = {c: 0 for c in self.layout.cells}
        self.times: dict[Cell, list[float]] = {c: [] for c in self.layout.cells}
        self.warmups_done: set[str] = set()
        self._cache: Decided | None = None
        self._stale = True
        if runs is not None:
            for row in runs.iter_rows(named=True):
                self.record(row)

    # -- recording ---------------------------------------------------------
    def record(self, row: dict) -> None:
        """Count one stored or finished run (rows of other configurations are ignored)."""
        if not str(row.get("run_id", "")).endswith(f"-{self.hash}"):
            return
        if row.get("warmup"):
            self.warmups_done.add(row["run_id"])
            return
        cell = (float(row.get("contention") or 0.0), row.get("cpu_limit_cores"), str(row.get("threads")))
        cell = next((c for c in self.layout.cells if _same(c, cell)), None)
        if cell is None:
            return
        self.attempts[cell] += 1
        if row.get("status") == "ok" and row.get("wall_seconds"):
            self.times[cell].append(float(row["wall_seconds"]))
        else:
            self.failures[cell] += 1
        self._stale = True

    @property
    def runs_used(self) -> int:
        """Measured runs of this spec so far (failed ones included)."""
        return sum(self.attempts.values())

    def decisions(self) -> list[Decision] | None:
        """The current decisions (``None`` while the runs cannot decide anything yet)."""
        both = self.decided()
        return None if both is None else both.decisions

    def decided(self) -> Decided | None:
        """The current decisions with their joint confidence (``None`` as :meth:`decisions`)."""
        if self._stale:
            self._cache = decide_jointly(self.times, self.layout, self.settings, seed=self.spec.seed)
            self._stale = False
        return self._cache

    # -- choosing ----------------------------------------------------------
    def next_run(self) -> tuple[RunPlan, str] | None:
        """The next run and why it was chosen, or ``None`` when the sweep is finished."""
        for i in range(self.spec.warmup):
            cell = self.order[i % len(self.layout.cells)]
            plan = self._plan(cell, i, warmup=True)
            if plan.run_id not in self.warmups_done:
                return plan, f"warm-up {i + 1} of {self.spec.warmup} (not analysed)"
        if self.runs_used >= self.budget:
            return None
        missing = self.initial_missing()
        skipped = dominated_cells(cell_stats(self.times, self.settings), self.layout)
        if missing:
            done = sum(1 for c in self.layout.cells if self.times[c])
            if self.settings.model == "smooth":
                return self._plan(missing[0]), (f"initial design: a connected half of the cells, the model "
                                                f"predicts the rest ({done + 1} of {len(self.order)})")
            return self._plan(missing[0]), (f"initial design: every cell once unless its thread count is dominated "
                                            f"({done + 1} of at most {len(self.layout.cells)})")
        if self.settings.model != "smooth" and any(not self.times[c] and c not in skipped for c in self.layout.cells):
            return None
        bump = lone_bump(self.times, self.attempts, self.layout, self.settings, self.max_replicates, self.order)
        if bump is not None:
            cell, axis = bump
            return self._plan(cell), (f"lone run out of line with its neighbours (slower than both along {axis}): "
                                      f"checking {cell_label(cell)} for an outlying run")
        decided = self.decided()
        if decided is None or decided.confident:
            return None
        short = short_pivotal(decided, self.times, self.attempts, self.failures, self.settings, self.max_replicates)
        if short is not None:
            cell, d = short
            return self._plan(cell), (f"P(every decision right) {_pct(decided.joint)} >= {_pct(decided.confidence)}, "
                                      f"but {d.subject} hinges on {cell_label(cell)} with {len(self.times[cell])} "
                                      f"run(s) (needs {self.settings.min_replicates})")
        decisions = decided.decisions
        open_ = [d for d in decisions if not d.resolved] or sorted(decisions, key=lambda d: d.confidence)[:3]
        valued = self._most_valuable()
        if valued is not None:
            v = valued
            return self._plan(v.cell), (f"value of one more run: P(every decision right) {_pct(v.now)} -> "
                                        f"{_pct(v.now + v.gain)} expected; {cell_label(v.cell)} had "
                                        f"{len(self.times[v.cell])} run(s)")
        best = doubtful_cell(open_, self.times, self.attempts, self.failures, self.layout, self.settings,
                             self.max_replicates)
        if best is None:
            return None
        cell, d = best
        why = (f"{d.subject}: '{d.answer}' at {_pct(d.confidence)} < {_pct(d.target)}"
               if d.confidence < d.target else
               f"{d.subject}: '{d.answer}' at {_pct(d.confidence)} needs {self.settings.min_replicates} runs")
        return self._plan(cell), f"{why}; {cell_label(cell)} had {len(self.times[cell])} run(s)"

    def initial_missing(self) -> list[Cell]:
        """Cells of the initial design still without a usable run (dominated thread counts left out)."""
        skipped = dominated_cells(cell_stats(self.times, self.settings), self.layout)
        return [c for c in self.order if not self.times[c] and c not in skipped
                and self.failures[c] < MAX_FAILURES_PER_CELL]

    def status(self) -> AdaptiveStatus:
        """The decisions so far and whether (and why) the design has stopped."""
        decided = self.decided()
        nxt = self.next_run()
        if decided is None and nxt is None and any(self.times.values()):
            # stopped (budget) with a thread count no longer clearly dominated and never run:
            # decide with the ordering as it stands, and say so
            decided = decide_jointly(self.times, self.layout, self.settings, seed=self.spec.seed,
                                     dominance_sure=0.5)
        decisions = None if decided is None else decided.decisions
        warm_left = nxt is not None and nxt[0].warmup
        confident = decided is not None and decided.confident
        if nxt is not None:
            reason = "running" if self.runs_used else "not started"
        elif confident:
            reason = (f"confident: every decision right together with {_pct(decided.joint)} >= "
                      f"{_pct(decided.confidence)} (joint posterior over the {len(decisions)} decisions), "
                      f"after {self.runs_used} of {self.budget} budgeted runs")
        elif self.runs_used >= self.budget:
            reason = f"run budget spent ({self.runs_used} of {self.budget} runs)"
            if decided is not None and decided.joint < decided.confidence:
                reason += f": every decision right together with {decided.joint:.1%} < {decided.confidence:.0%}"
            elif decided is not None:
                reason += (f": every decision right together with {decided.joint:.1%}, but cells the answers "
                           f"hinge on have fewer than {self.settings.min_replicates} runs")
        elif decisions is None:
            reason = "some cells failed repeatedly: nothing decided"
        else:
            reason = f"the open decisions' cells reached {self.max_replicates} runs each"
        open_ = [d for d in decisions or [] if not d.resolved]
        return AdaptiveStatus(decisions, self.runs_used, self.budget, self.grid_runs,
                              nxt is None and not warm_left, reason, open_,
                              None if decided is None else decided.joint, confident and nxt is None)

    def _most_valuable(self) -> RunValue | None:
        """The cell whose next run most raises the chance that every decision is right (None: no gain)."""
        cand = [c for c in self.layout.cells if (self.times[c] or self.settings.model == "smooth")
                and self.attempts[c] < self.max_replicates
                and self.failures[c] < MAX_FAILURES_PER_CELL]
        vals = run_values(self.times, self.layout, self.settings, cand, seed=self.spec.seed + self.runs_used)
        if not vals:
            return None
        best = max(vals, key=lambda v: v.gain)
        return best if best.gain > 1e-4 else None

    def _plan(self, cell: Cell, replicate: int | None = None, *, warmup: bool = False) -> RunPlan:
        share, limit, threads = cell
        rep = self.attempts[cell] if replicate is None else replicate
        return self.spec.run_plan(limit, threads, self._contention.get(share, Contention()), rep, warmup=warmup,
                                  order=self.runs_used, config_hash=self.hash)


def _pct(p: float) -> str:
    """``'97%'``, or ``'99.8%'`` when rounding to whole percents would hide the difference."""
    return f"{p:.0%}" if p < 0.99 else f"{p:.1%}"


def _same(a: Cell, b: Cell) -> bool:
    return (abs(a[0] - b[0]) < 1e-9 and a[2] == b[2]
            and (a[1] is None) == (b[1] is None) and (a[1] is None or abs(a[1] - b[1]) < 1e-9))
