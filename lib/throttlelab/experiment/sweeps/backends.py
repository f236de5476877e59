"""The backend interface every experiment backend implements, and the identifying columns of the row it returns.

A backend runs one :class:`~throttlelab.experiment.sweeps.plan.RunPlan` at a time
and returns one row of the canonical runs table (:data:`throttlelab.tables.RUNS`)
as a dict.  The backends are named once, in
:data:`~throttlelab.experiment.sweeps.spec_file.BACKENDS`; :mod:`throttlelab.experiment.registry`
hands out instances by name.
:func:`~throttlelab.experiment.sweeps.run_sweep.run_sweep` drives one::

    backend = get_backend(spec.backend)   # throttlelab.experiment.registry
    backend.remove_orphans()          # leftovers of a crashed sweep
    backend.prepare(spec)
    for plan in spec.plan():          # minus completed runs
        row = backend.execute(plan, store.monitor_path(plan.run_id))
        store.append(row)
    backend.cleanup(spec)             # also on Ctrl-C / SIGTERM

Rules for ``execute``

* A failure of the *workload* (non-zero exit, timeout) is not an exception:
  return a row with ``status`` ``'failed'`` or ``'timeout'`` and ``error`` set.
* Raise :class:`~throttlelab.errors.EnvironmentProblem` when the backend itself
  cannot work (no writable cgroup, no cluster): the sweep stops.
* On ``KeyboardInterrupt`` remove what the run created and re-raise; write no row.
* Write the monitor log (ingest format, :mod:`throttlelab.ingest.monitor.monitor_format`)
  to ``monitor_log`` while the run goes.
* Start from :func:`base_row` so the identifying columns are filled the same way
  by every backend.
"""

from __future__ import annotations

import os
import socket
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from pathlib import Path

    from throttlelab.experiment.sweeps.plan import RunPlan
    from throttlelab.experiment.sweeps.spec import SweepSpec

STATUSES = ("ok", "failed", "timeout")


@runtime_checkable
class Backend(Protocol):
    """What the sweep runner needs from a backend.

    Attributes
    ----------
    name
        ``'local'``, ``'kubernetes'``, ...: goes into the runs table's ``backend`` column.
    """

    name: str

    def available(self) -> tuple[bool, str]:
        """Whether the backend can run here, and why not (empty reason when it can)."""
        ...

    def prepare(self, spec: SweepSpec) -> None:
        """Set up what all runs of ``spec`` share (parent cgroup, namespace, images, builds).

        Raises :class:`~throttlelab.errors.EnvironmentProblem` if the backend cannot work.
        """
        ...

    def execute(self, plan: RunPlan, monitor_log: Path) -> dict[str, Any]:
        """Run one plan to completion; return its runs-table row (see module docstring)."""
        ...

    def cleanup(self, spec: SweepSpec) -> None:
        """Remove everything ``prepare`` and ``execute`` created.  Idempotent, never raises
        for things already gone."""
        ...

    def find_orphans(self) -> list[str]:
        """Names of leftovers (cgroups, pods) of sweeps whose process is gone."""
        ...

    def remove_orphans(self) -> list[str]:
        """Kill and remove the leftovers :meth:`find_orphans` reports; return their names."""
        ...


def base_row(plan: RunPlan, backend: str) -> dict[str, Any]:
    """The identifying columns of a runs-table row for ``plan``.

    Measurement columns (``started_at``, ``wall_seconds``, ``cpu_seconds``,
    counters, ``exit_code``, ``status``, ``error``, ...) are the backend's to add.
    ``status`` starts as ``'failed'`` with an error, so a half-filled row is never
    mistaken for a good one.
    """
    return {
        "experiment": plan.experiment,
        "run_id": plan.run_id,
        "backend": backend,
        "workload": plan.workload.kind,
        "cpu_limit_cores": plan.limit_cores,
        "cpu_period_us": plan.period_us,
        "threads": plan.threads,
        "contention": plan.contention.share,
        "load": None,
        "replicate": plan.replicate,
        "warmup": plan.warmup,
        "node": local_node_name(),
        "status": "failed",
        "error": "run did not finish",
    }


def local_node_name() -> str:
    """This machine as a ``node`` value: hostname and usable CPUs, e.g. ``"vm (2 cpus)"``.

    The analysis reads the CPU count from it to place ``unlimited`` runs on the
    limit axis (:func:`throttlelab.analysis.runs.prepare.infer_machine_cores`).
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return f"{socket.gethostname()} ({cpus} cpus)"
