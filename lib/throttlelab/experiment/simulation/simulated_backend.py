"""The ``simulated`` backend: run results drawn from a ground-truth curve with realistic noise.

A run takes microseconds, so tests and benchmarks can run whole sweeps (the
adaptive design is evaluated on it: ``bench/bench_adaptive.py``).  The
spec's ``simulated:`` mapping sets the truth and the noise::

    backend: simulated
    simulated:
      cpu_seconds: 4.0          # CPU work of one run
      parallelism: 4            # cores the work can use at best (the knee)
      knee_sharpness: 4         # how sharply it saturates (large: a hard corner)
      machine_cores: 4          # the node; 'unlimited' runs get this many cores
      auto_threads: 4           # what 'auto' means (Go before 1.25: the node's cores)
      oversubscription_pct: 0   # extra time per thread beyond the limit, % (GOMAXPROCS > quota)
      thread_overhead_pct: 0    # extra time per thread beyond the first, % (synchronisation)
      dead_zone: null           # {from: 1.2, to: 1.7, slowdown_pct: 30}: slower limits
      contention_slowdown: 0.5  # at share 1 and full load the run takes (1 + this) longer
      noise_cv: 0.08            # run-to-run noise: log-scale sd at 0 cores ...
      noise_growth: 0.25        # ... times (1 + noise_growth x cores of the limit)
      tail_df: 5                # Student-t degrees of freedom of that noise (heavy tails)
      outlier_rate: 0.03        # share of runs hit by an interference outlier ...
      outlier_factor: [1.3, 2.5]  # ... that multiplies their time by a factor in this range
      seed: 0

The noise of a run is a deterministic function of ``seed`` and its run id, so
a resumed sweep draws exactly what an uninterrupted one would have.
:func:`true_seconds` gives the noise-free time (the ground truth).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from throttlelab.config_file import KeyLines, validate
from throttlelab.experiment.sweeps.backends import base_row
from throttlelab.experiment.sweeps.spec_file import SimulatedOptions

if TYPE_CHECKING:
    from pathlib import Path

    from throttlelab.experiment.sweeps.plan import RunPlan
    from throttlelab.experiment.sweeps.spec import SweepSpec


@dataclass(frozen=True)
class SimulatedTruth:
    """Ground truth and noise of the simulated backend (keys of the spec's ``simulated:`` mapping)."""

    cpu_seconds: float = 4.0
    parallelism: float = 4.0
    knee_sharpness: float = 4.0
    machine_cores: float = 4.0
    auto_threads: int = 4
    oversubscription_pct: float = 0.0
    thread_overhead_pct: float = 0.0
    dead_zone: dict | None = None
    contention_slowdown: float = 0.5
    noise_cv: float = 0.08
    noise_growth: float = 0.25
    tail_df: float = 5.0
    outlier_rate: float = 0.03
    outlier_factor: tuple[float, float] = (1.3, 2.5)
    seed: int = 0


def truth_from_options(options: Mapping[str, Any], where: str = "<spec>", *, lines: KeyLines | None = None
                       ) -> SimulatedTruth:
    """The spec's ``simulated:`` mapping, validated by :class:`~throttlelab.experiment.sweeps.spec_file.SimulatedOptions`.

    Raises
    ------
    SpecError
        ``<file>:<line>: key 'simulated.<name>': <what was expected>``.
    """
    model = validate(SimulatedOptions, options, source=where, lines=lines, prefix=("simulated",))
    kw = model.model_dump(exclude_unset=True, by_alias=True)
    if kw.get("dead_zone") is not None:
        kw["dead_zone"] = {k: float(v) for k, v in kw["dead_zone"].items()}
    if "outlier_factor" in kw:
        kw["outlier_factor"] = tuple(float(v) for v in kw["outlier_factor"])
    return SimulatedTruth(**{k: float(v) if isinstance(v, int) and k not in ("seed", "auto_threads") else v
                             for k, v in kw.items()})


def true_seconds(truth: SimulatedTruth, limit: float | None, threads: str, contention: float = 0.0) -> float:
    """Noise-free wall time of one run (the ground truth the decisions are checked against).

    Examples
    --------
    >>> t = SimulatedTruth(cpu_seconds=4, parallelism=2, knee_sharpness=50, machine_cores=4)
    >>> round(true_seconds(t, 1.0, "4"), 2), round(true_seconds(t, None, "4"), 2)
    (4.0, 2.0)
    """
    cores = truth.machine_cores if limit is None else min(limit, truth.machine_cores)
    n = truth.auto_threads if threads == "auto" else int(threads)
    usable = min(truth.parallelism, float(n))
    k = truth.knee_sharpness
    effective = (cores ** -k + usable ** -k) ** (-1.0 / k)
    seconds = truth.cpu_seconds / effective
    seconds *= 1 + truth.thread_overhead_pct / 100 * (n - 1)
    if n > cores:
        seconds *= 1 + truth.oversubscription_pct / 100 * min(n / cores - 1, 8.0)
    dz = truth.dead_zone
    if dz and limit is not None and dz["from"] <= limit <= dz["to"]:
        seconds *= 1 + dz["slowdown_pct"] / 100
    if contention > 0:
        load = min(1.0, n / truth.machine_cores, cores / truth.machine_cores * 2)
        seconds *= 1 + truth.contention_slowdown * contention * load
    return seconds


def noise_sd(truth: SimulatedTruth, limit: float | None) -> float:
    """Run-to-run noise of a run at ``limit`` (log-scale sd; it grows with the cores the limit gives).

    Examples
    --------
    >>> t = SimulatedTruth(noise_cv=0.08, noise_growth=0.25, machine_cores=4)
    >>> round(noise_sd(t, 0.5), 3), round(noise_sd(t, None), 3)
    (0.09, 0.16)
    """
    cores = truth.machine_cores if limit is None else min(limit, truth.machine_cores)
    return truth.noise_cv * (1 + truth.noise_growth * cores)


def draw_seconds(truth: SimulatedTruth, plan_key: str, limit: float | None, threads: str,
                 contention: float = 0.0) -> tuple[float, bool]:
    """One noisy run time (and whether it is an outlier), deterministic in ``seed`` and ``plan_key``."""
    digest = hashlib.sha256(f"{truth.seed}:{plan_key}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    sd = noise_sd(truth, limit)
    df = truth.tail_df
    eps = rng.standard_t(df) * (math.sqrt((df - 2) / df) if df > 2 else 1.0)
    seconds = true_seconds(truth, limit, threads, contention) * math.exp(sd * eps)
    outlier = bool(rng.random() < truth.outlier_rate)
    if outlier:
        seconds *= rng.uniform(*truth.outlier_factor)
    return seconds, outlier


class SimulatedBackend:
    """Draws each run's row from :class:`SimulatedTruth` (see the module docstring)."""

    name = "simulated"

    def __init__(self, truth: SimulatedTruth | None = None):
        self.truth = truth

    def available(self) -> tuple[bool, str]:
        return True, ""

    def prepare(self, spec: SweepSpec) -> None:
        """Read the truth from the spec's ``simulated:`` mapping (unless one was given)."""
        if self.truth is None or spec.backend_options:
            self.truth = truth_from_options(spec.backend_options, str(spec.source or "<spec>"), lines=spec.source_lines)

    def execute(self, plan: RunPlan, monitor_log: Path) -> dict[str, Any]:  # noqa: ARG002 - no monitor log
        """A row with wall time, CPU time and CFS counters consistent with the drawn time."""
        truth = self.truth or SimulatedTruth()
        wall, _ = draw_seconds(truth, plan.run_id, plan.limit_cores, plan.threads, plan.contention.share)
        cores = truth.machine_cores if plan.limit_cores is None else min(plan.limit_cores, truth.machine_cores)
        cpu = min(truth.cpu_seconds * (wall / true_seconds(truth, plan.limit_cores, plan.threads,
                                                            plan.contention.share)) ** 0.1, wall * cores)
        periods = max(1, round(wall * 1e6 / plan.period_us))
        busy = cpu / (wall * cores) if plan.limit_cores is not None else 0.0
        throttled = round(periods * min(1.0, max(0.0, (busy - 0.5) * 2))) if plan.limit_cores is not None else 0
        row = base_row(plan, self.name)
        row.update(
            node=f"simulated ({truth.machine_cores:g} cpus)",
            started_at=dt.datetime.now(dt.timezone.utc),
            wall_seconds=wall, cpu_seconds=cpu, user_seconds=cpu * 0.97, system_seconds=cpu * 0.03,
            nr_periods=periods if plan.limit_cores is not None else None,
            nr_throttled=throttled if plan.limit_cores is not None else None,
            throttled_seconds=throttled * plan.period_us / 1e6 * 0.5 if plan.limit_cores is not None else None,
            exit_code=0, status="ok", error=None,
        )
        return row

    def cleanup(self, spec: SweepSpec) -> None:
        pass

    def find_orphans(self) -> list[str]:
        return []

    def remove_orphans(self) -> list[str]:
        return []
