"""Run latency experiments: the target service in a cgroup, a noisy neighbour, load.

One *point* (:class:`~.latency_sweep.LatencyPoint`) = start the service
(:mod:`throttlelab.experiment.latency.service`) as a process placed in the run's own
cgroup (it joins before exec; see :mod:`.latency_placement`), warm it up, start
the noisy neighbour (:class:`~throttlelab.experiment.local_cgroup.neighbour.NoisyNeighbour`,
a sibling cgroup of busy workers capped at ``contention`` of the machine), let
it settle, drive the service with the load generator
(:mod:`throttlelab.experiment.local_cgroup.loadgen`), then stop everything and remove the
cgroups.  Each point gives one runs-table row (CPU and throttling counters of
the service's cgroup), and its requests and stage timings.

A sweep (:class:`~.latency_sweep.LatencySweep`, from a YAML/JSON mapping) is
the product of loads x contention shares x service configurations x
replicates, written to a run store
(:class:`~throttlelab.experiment.sweeps.run_store.RunStore`)::

    <data_root>/<experiment>/runs/<run_id>.json
    <data_root>/<experiment>/requests/<run_id>.parquet
    <data_root>/<experiment>/stage_timings/<run_id>.parquet

Points already in the store are skipped (resume).  :func:`~throttlelab.experiment.stores.read_latency_store`
reads the three tables back.

Placement is backend-agnostic in shape: ``backend="local"`` uses cgroups of
this machine; ``backend="none"`` runs the service without a cgroup and the
neighbour as duty-cycled processes (no cgroup needed; for machines without
one, and tests); ``backend="kubernetes"`` runs the service as a Deployment
behind a Service and the neighbour as stress pods on the one-node cluster of
``make cluster-up`` (:mod:`throttlelab.experiment.kubernetes.pod_placement`),
with the load generator on this machine.
"""

from __future__ import annotations

import datetime as dt
import os
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from throttlelab.errors import SpecError
from throttlelab.experiment.latency.latency_placement import Placement
from throttlelab.experiment.latency.latency_sweep import LatencyPoint, LatencySweep
from throttlelab.experiment.local_cgroup.loadgen import ClosedLoop, Labels, LoadResult, run_load

BACKENDS = ("local", "none", "kubernetes")


# -- one point ---------------------------------------------------------------------
@dataclass(frozen=True)
class PointResult:
    """What one point produced: its runs row and its load result."""

    row: dict[str, Any]
    load: LoadResult = field(repr=False)


def run_point(point: LatencyPoint, *, backend: str = "local") -> PointResult:
    """Run one latency point (see the module docstring); never raises for a failing service."""
    if backend not in BACKENDS:
        raise SpecError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    labels = Labels(point.experiment, point.run_id, point.config, point.endpoint, point.contention,
                    point.neighbour_workers if point.contention > 0 else None)
    row: dict[str, Any] = {
        "experiment": point.experiment, "run_id": point.run_id, "backend": backend,
        "workload": f"service-{point.endpoint}", "cpu_limit_cores": point.cpu_limit_cores, "cpu_period_us": 100_000,
        "threads": str(point.max_workers), "contention": point.contention, "load": point.load,
        "replicate": point.replicate, "warmup": False, "node": socket.gethostname(), "status": "failed",
        "error": "run did not finish", "endpoint": point.endpoint, "mode": point.mode, "config": point.config,
        "neighbour_workers": point.neighbour_workers,
    }
    with _placement(backend, point) as place:
        if backend == "kubernetes":
            row["node"] = f"{place.node} ({place.node_cpus:g} cpus)"
        svc = place.service(point.pipeline_config())
        with svc:
            url = svc.url + point.path
            if point.warmup_seconds > 0:
                run_load(url, ClosedLoop(vus=1, duration_seconds=point.warmup_seconds, max_requests=50),
                         timeout_seconds=point.timeout_seconds)
            with place.neighbour(point.contention, point.neighbour_workers) as nb:
                time.sleep(point.settle_seconds if point.contention > 0 else 0)
                before = place.counters()
                row["started_at"] = dt.datetime.now(dt.timezone.utc)
                result = run_load(url, point.pattern(), labels=labels, timeout_seconds=point.timeout_seconds)
                after = place.counters()
            row["neighbour_mode"] = nb.mode
            row["neighbour_cpu_seconds"] = nb.cpu_seconds
            alive = svc.alive()
        row["exit_code"] = svc.stop()
    row["wall_seconds"] = result.wall_seconds
    if before is not None and after is not None:
        row |= {"cpu_seconds": after.cpu_seconds - before.cpu_seconds,
                "nr_periods": after.nr_periods - before.nr_periods,
                "nr_throttled": after.nr_throttled - before.nr_throttled,
                "throttled_seconds": after.throttled_seconds - before.throttled_seconds}
    counts = result.status_counts()
    failed = sum(v for k, v in counts.items() if k != "ok")
    row["requests"] = int(result.requests.height)
    row["requests_failed"] = int(failed)
    if not alive:
        row["status"], row["error"] = "failed", f"the service died during the run ({failed} requests failed)"
    else:
        row["status"] = "ok"
        row["error"] = None if not failed else "failed requests: " + ", ".join(
            f"{k}={v}" for k, v in sorted(counts.items()) if k != "ok")
    return PointResult(row, result)


def _placement(backend: str, point: LatencyPoint):
    if backend == "kubernetes":
        from throttlelab.experiment.kubernetes.pod_placement import PodPlacement

        return PodPlacement(point.run_id, point.cpu_limit_cores)
    return Placement(backend, point.run_id, point.cpu_limit_cores)


# -- sweeps and the store ----------------------------------------------------------
def run_latency_sweep(sweep: LatencySweep, data_root: str | Path, *, backend: str = "local",
                      progress=None) -> Path:
    """Run every point not yet in ``<data_root>/<experiment>``; return that folder.

    ``progress`` is called with ``(index, total, point, row)`` after each point.
    """
    from throttlelab.experiment.sweeps.run_store import RunStore

    store = RunStore(Path(data_root) / sweep.base.experiment)
    store.remove_temporaries()
    done = store.completed_run_ids()
    points = sweep.points()
    for d in ("requests", "stage_timings"):
        (store.directory / d).mkdir(parents=True, exist_ok=True)
    for i, point in enumerate(points):
        if point.run_id in done:
            continue
        res = run_point(point, backend=backend)
        _write_parquet(res.load.requests, store.directory / "requests" / f"{point.run_id}.parquet")
        _write_parquet(res.load.stage_timings, store.directory / "stage_timings" / f"{point.run_id}.parquet")
        store.append(res.row)
        if progress is not None:
            progress(i, len(points), point, res.row)
    return store.directory


def run_live_sweep(mapping: dict, data_root: str | Path, *, backend: str = "local") -> tuple[str, dict]:
    """Run (or resume) the sweep a notebook parameter describes.

    Returns the run-store folder (to read with ``experiment.latency.latency_inputs.load_measured``)
    and what ``results.json`` records of it (store, number of points, backend).
    """
    sweep = LatencySweep.from_mapping(dict(mapping), source="live_sweep")
    folder = run_latency_sweep(sweep, data_root, backend=backend)
    return str(folder), {"store": str(folder), "points": len(sweep.points()), "backend": backend}


def _write_parquet(df: pl.DataFrame, path: Path) -> None:
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    df.write_parquet(tmp)
    os.replace(tmp, path)



