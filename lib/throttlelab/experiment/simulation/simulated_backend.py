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
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from throttlelab.errors import SpecError
from throttlelab.experiment.sweeps.backends import base_row

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


def truth_from_options(options: Mapping[str, Any], where: str = "<spec>") -> SimulatedTruth:
    """Validate the spec's ``simulated:`` mapping.

    Raises
    ------
    SpecError
        ``<file>: key 'simulated.<name>': <what was expected>``.
    """
    known = {f.name for f in fields(SimulatedTruth)}
    kw: dict[str, Any] = {}
    for key, value in options.items():
        name = f"simulated.{key}"
        if key not in known:
            raise SpecError(f"{where}: key '{name}': unknown (known: {', '.join(sorted(known))})")
        if key == "dead_zone":
            if value is not None:
                if not isinstance(value, Mapping) or not {"from", "to", "slowdown_pct"} <= set(value):
                    raise SpecError(f"{where}: key '{name}': a mapping with from, to and slowdown_pct, or null")
                if not all(_number(value[k]) for k in ("from", "to", "slowdown_pct")):
                    raise SpecError(f"{where}: key '{name}': from, to and slowdown_pct must be numbers")
            kw[key] = dict(value) if value is not None else None
        elif key == "outlier_factor":
            if not (isinstance(value, list) and len(value) == 2 and all(_number(v) and v >= 1 for v in value)
                    and value[0] <= value[1]):
                raise SpecError(f"{where}: key '{name}': a range [low, high] with 1 <= low <= high, got {value!r}")
            kw[key] = (float(value[0]), float(value[1]))
        elif key in ("seed", "auto_threads"):
            if not isinstance(value, int) or isinstance(value, bool) or (key == "auto_threads" and value < 1):
                raise SpecError(f"{where}: key '{name}': must be an integer, got {value!r}")
            kw[key] = value
        else:
            positive = key in ("cpu_seconds", "parallelism", "knee_sharpness", "machine_cores", "tail_df")
            if not _number(value) or value < 0 or (positive and value <= 0) or (key == "outlier_rate" and value > 1):
                raise SpecError(f"{where}: key '{name}': must be a {'positive' if positive else 'non-negative'} "
                                f"number{' at most 1' if key == 'outlier_rate' else ''}, got {value!r}")
            kw[key] = float(value)
    return SimulatedTruth(**kw)


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


def draw_seconds(truth: SimulatedTruth, plan_key: str, limit: float | None, threads: str,
                 contention: float = 0.0) -> tuple[float, bool]:
    """One noisy run time (and whether it is an outlier), deterministic in ``seed`` and ``plan_key``."""
    digest = hashlib.sha256(f"{truth.seed}:{plan_key}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    cores = truth.machine_cores if limit is None else min(limit, truth.machine_cores)
    sd = truth.noise_cv * (1 + truth.noise_growth * cores)
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
            self.truth = truth_from_options(spec.backend_options, str(spec.source or "<spec>"))

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


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
