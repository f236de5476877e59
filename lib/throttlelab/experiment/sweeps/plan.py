"""The plan of a sweep: the runs it makes, in execution order, with deterministic ids.

A :class:`~throttlelab.experiment.sweeps.spec.SweepSpec` is a grid (limits x threads
x contention levels) repeated ``replicates`` times; :func:`plan_runs` expands
it into :class:`RunPlan` objects, one per run, each with everything a backend
needs: the :class:`Workload` it executes, the :class:`Contention` (noisy
neighbour) it runs under, its CPU limit, thread count and timeouts.  Run ids
come from :func:`make_run_id`: the same spec always gives the same ids, so
re-running a spec resumes where it stopped.
"""

from __future__ import annotations

from throttlelab.core.quantities import format_millicores

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from throttlelab.experiment.sweeps.spec import SweepSpec


@dataclass(frozen=True)
class Contention:
    """A noisy-neighbour level.

    Attributes
    ----------
    share
        CPU share of the whole machine (0-1) the neighbour may use: its cgroup
        quota is ``share * cpu_count * period``.  0 means no neighbour.
    workers
        Number of busy worker threads the neighbour runs.
    """

    share: float = 0.0
    workers: int = 0

    @property
    def active(self) -> bool:
        """True when there is a neighbour at all."""
        return self.share > 0 and self.workers > 0

    @property
    def label(self) -> str:
        """Short text form, e.g. ``'0.5x2'`` or ``'none'``."""
        return f"{self.share:g}x{self.workers}" if self.active else "none"


@dataclass(frozen=True)
class Workload:
    """What each run executes.

    Attributes
    ----------
    kind
        ``ffmpeg``, ``burner``, ``go`` or ``command``.
    command
        For ``command``: a shell-free command line with ``{threads}`` (the
        thread count as text, ``auto`` included) and ``{nproc}`` placeholders.
    options
        Workload options (e.g. ``duration``, ``frames``, ``size``, ``preset`` for
        ffmpeg; ``cpu_seconds`` for the burner; ``work`` for go).  Interpreted by
        :mod:`throttlelab.experiment.local_cgroup.workloads`; not hashable, do not hash a Workload.
    """

    kind: str
    command: str | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def option(self, name: str, default: Any = None) -> Any:
        """One option's value, or ``default``."""
        return self.options.get(name, default)


@dataclass(frozen=True)
class RunPlan:
    """One planned run: a grid point x replicate (or a warm-up run).

    Attributes
    ----------
    experiment
        Experiment name (folder under the data root).
    run_id
        Deterministic id: the same spec always gives the same ids, so a re-run
        resumes.  Safe as a file name and a cgroup / Kubernetes name component
        (lowercase letters, digits, ``-`` and ``.``).
    order
        0-based position in the execution order.
    limit_cores
        CPU limit in cores; ``None`` = unlimited.
    threads
        ``'auto'`` or an integer as text.
    contention
        Noisy-neighbour level for this run.
    replicate
        0-based replicate number (for warm-ups: the warm-up number).
    warmup
        True for warm-up runs (recorded and marked, not analysed).
    period_us, burst_us
        CFS period and burst (``None``: the kernel default, no burst).
    workload
        The workload (shared by all runs of a spec).
    timeout_s
        Per-run timeout in seconds.
    sampling_interval_s
        Monitor sampler interval in seconds.
    backend_options
        The spec's backend-specific mapping, uninterpreted.
    """

    experiment: str
    run_id: str
    order: int
    limit_cores: float | None
    threads: str
    contention: Contention
    replicate: int
    warmup: bool
    period_us: int
    burst_us: int | None
    workload: Workload
    timeout_s: float
    sampling_interval_s: float
    backend_options: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def quota_us(self) -> int | None:
        """CFS quota in microseconds (``limit_cores * period_us``); ``None`` = unlimited."""
        if self.limit_cores is None:
            return None
        return max(1000, round(self.limit_cores * self.period_us))

    @property
    def thread_count(self) -> int | None:
        """Thread count as an int; ``None`` for ``auto``."""
        return None if self.threads == "auto" else int(self.threads)


def make_run_id(limit: float | None, threads: str, contention: Contention, replicate: int,
                warmup: bool, config_hash: str) -> str:
    """Deterministic, file- and DNS-label-friendly run id.

    Example: ``l500m-t2-c0-r0-3fa9c1`` (0.5 cores, 2 threads, no neighbour,
    replicate 0); ``c50w2`` is a neighbour at 50 % of the machine with 2 workers;
    ``lunl`` is unlimited; warm-ups have ``w<n>`` instead of ``r<n>``.
    """
    lim = format_millicores(limit, unlimited="unl")
    con = f"{round(contention.share * 100)}w{contention.workers}" if contention.active else "0"
    return f"l{lim}-t{threads}-c{con}-{'w' if warmup else 'r'}{replicate}-{config_hash}"


def plan_runs(spec: SweepSpec) -> list[RunPlan]:
    """Expand a spec's grid into runs, in execution order (what :meth:`SweepSpec.plan` returns).

    Warm-up runs come first (the first ``warmup`` grid points of the first
    replicate's order, marked ``warmup=True``).  With ``order: random`` each
    replicate is one block in which the grid points are shuffled with
    ``random.Random(seed)`` (blocked randomisation: drift of the machine over
    time spreads evenly over the grid); ``sequential`` keeps grid order.
    The result is deterministic for a given spec.
    """
    grid = [(lim, thr, con) for con in spec.contention for lim in spec.limits for thr in spec.threads]
    rng = random.Random(spec.seed)
    blocks = []
    for _ in range(spec.replicates):
        block = list(grid)
        if spec.order == "random":
            rng.shuffle(block)
        blocks.append(block)
    h = spec.config_hash()
    runs: list[tuple[Any, ...]] = []
    first = blocks[0] if blocks else grid
    for i in range(spec.warmup):
        lim, thr, con = first[i % len(first)]
        runs.append((lim, thr, con, i, True))
    for rep, block in enumerate(blocks):
        runs.extend((lim, thr, con, rep, False) for lim, thr, con in block)
    return [
        RunPlan(
            experiment=spec.name,
            run_id=make_run_id(lim, thr, con, rep, warm, h),
            order=i,
            limit_cores=lim,
            threads=thr,
            contention=con,
            replicate=rep,
            warmup=warm,
            period_us=spec.period_us,
            burst_us=spec.burst_us,
            workload=spec.workload,
            timeout_s=spec.timeout_s,
            sampling_interval_s=spec.sampling_interval_s,
            backend_options=spec.backend_options,
        )
        for i, (lim, thr, con, rep, warm) in enumerate(runs)
    ]
