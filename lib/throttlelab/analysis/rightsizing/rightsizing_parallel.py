"""Right-sizing every workload container of a cluster, in forked worker processes from a large one on."""

from __future__ import annotations

from throttlelab.analysis.rightsizing.rightsizing import rightsize
from throttlelab.analysis.rightsizing.recommendation import Rightsizing, Settings

#: From this many workload containers on, :func:`rightsize_all` spreads them over the machine's cores.
PARALLEL_FROM = 400
_CONTAINERS: tuple = ()


def _take(containers: tuple) -> None:
    """A forked worker's initializer: the containers it shares the work on (inherited, nothing pickled)."""
    global _CONTAINERS
    _CONTAINERS = containers


def _rightsize_chunk(job: tuple[int, int, Settings]) -> list[Rightsizing]:
    lo, hi, settings = job
    return [rightsize(c, settings) for c in _CONTAINERS[lo:hi]]


def rightsize_all(containers, settings: Settings = Settings(), *, processes: int | None = None,
                  parallel_from: int = PARALLEL_FROM) -> list[Rightsizing]:
    """:func:`rightsize` for each workload container (or lone pod's container), in order.

    From ``parallel_from`` containers on (a large cluster), forked worker processes share the work, one per core
    (``processes``, at most 4; 1: in this process); each container's result is the same as in one process (its
    bootstrap has its own seed).  The bootstrap's matrix products run on one BLAS thread: they are small, and
    OpenBLAS' other threads spin between them (on 14 days of 500 workload containers they doubled the CPU time and
    gained no wall time).
    """
    import os

    from threadpoolctl import threadpool_limits

    containers = tuple(containers)
    procs = processes or min(os.cpu_count() or 1, 4)
    with threadpool_limits(limits=1, user_api="blas"):
        if procs < 2 or len(containers) < parallel_from or os.name != "posix":
            return [rightsize(c, settings) for c in containers]
        import multiprocessing

        size = max(1, len(containers) // (procs * 8))
        jobs = [(lo, min(lo + size, len(containers)), settings) for lo in range(0, len(containers), size)]
        with multiprocessing.get_context("fork").Pool(procs, initializer=_take, initargs=(containers,)) as pool:
            return [r for part in pool.imap(_rightsize_chunk, jobs) for r in part]
