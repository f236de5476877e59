"""The plan of a sweep: the runs it makes, in execution order, with deterministic ids.

A :class:`~throttlelab.experiment.sweeps.spec.SweepSpec` is a grid (limits x threads
x contention levels) repeated ``replicates`` times; :func:`run_order` puts its
runs in execution order and :meth:`~throttlelab.experiment.sweeps.spec.SweepSpec.plan`
makes each a :class:`RunPlan` with everything a backend needs: the
:class:`Workload` it executes, the :class:`Contention` (noisy neighbour) it runs
under, its CPU limit, thread count and timeouts.  Run ids come from
:func:`make_run_id`: the same spec always gives the same ids, so re-running a
spec resumes where it stopped.
"""

from __future__ import annotations

from throttlelab.core.quantities import format_millicores

import random
from dataclasses import dataclass, field
from typing import Any


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


#: One run of a grid as :func:`run_order` gives it: ``(limit, threads, contention, replicate, warmup)``.
GridRun = tuple["float | None", str, Contention, int, bool]


def run_order(grid: list[tuple[float | None, str, Contention]], *, replicates: int, warmup: int, order: str,
              seed: int) -> list[GridRun]:
    """The runs of a grid of cells ``(limit, threads, contention)``, in execution order.

    Warm-up runs come first (the first ``warmup`` cells of the first
    replicate's order, marked as warm-ups).  With ``order: random`` each
    replicate is one block in which the cells are shuffled with
    ``random.Random(seed)`` (blocked randomisation: drift of the machine over
    time spreads evenly over the grid); ``sequential`` keeps grid order.
    The result is deterministic for given arguments.

    Examples
    --------
    >>> grid = [(0.5, "1", Contention()), (1.0, "1", Contention())]
    >>> [(lim, rep, warm) for lim, _, _, rep, warm in run_order(grid, replicates=2, warmup=1, order="sequential", seed=0)]
    [(0.5, 0, True), (0.5, 0, False), (1.0, 0, False), (0.5, 1, False), (1.0, 1, False)]
    """
    rng = random.Random(seed)
    blocks = []
    for _ in range(replicates):
        block = list(grid)
        if order == "random":
            rng.shuffle(block)
        blocks.append(block)
    runs: list[GridRun] = []
    first = blocks[0] if blocks else grid
    for i in range(warmup):
        lim, thr, con = first[i % len(first)]
        runs.append((lim, thr, con, i, True))
    for rep, block in enumerate(blocks):
        runs.extend((lim, thr, con, rep, False) for lim, thr, con in block)
    return runs
