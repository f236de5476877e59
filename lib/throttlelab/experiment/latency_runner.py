"""Run latency experiments: the target service in a cgroup, a noisy neighbour, load.

One *point* = start the service (:mod:`throttlelab.experiment.service`) as a
process placed in the run's own cgroup (it joins before exec), warm it up,
start the noisy neighbour (:class:`~throttlelab.experiment.neighbour.NoisyNeighbour`,
a sibling cgroup of busy workers capped at ``contention`` of the machine), let
it settle, drive the service with the load generator
(:mod:`throttlelab.experiment.loadgen`), then stop everything and remove the
cgroups.  Each point gives one runs-table row (CPU and throttling counters of
the service's cgroup), and its requests and stage timings.

A sweep (:class:`LatencySweep`, from a YAML/JSON mapping) is the product of
loads x contention shares x service configurations x replicates, written to a
run store (:class:`~throttlelab.experiment.run_store.RunStore`)::

    <data_root>/<experiment>/runs/<run_id>.json
    <data_root>/<experiment>/requests/<run_id>.parquet
    <data_root>/<experiment>/stage_timings/<run_id>.parquet

Points already in the store are skipped (resume).  :func:`read_latency_store`
reads the three tables back.

Placement is backend-agnostic in shape: ``backend="local"`` uses cgroups of
this machine; ``backend="none"`` runs the service without a cgroup and the
neighbour as duty-cycled processes (no cgroup needed; for machines without
one, and tests).  A Kubernetes placement (service pod + stress pods) would
implement the same three steps (start service, neighbour context, counters).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
import os
import socket
import time
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import polars as pl

from throttlelab import tables
from throttlelab.errors import EnvironmentProblem, SpecError
from throttlelab.experiment.loadgen import ClosedLoop, Labels, LoadResult, OpenLoop, run_load
from throttlelab.experiment.service import PipelineConfig, ServiceProcess

ENDPOINTS = ("cpu", "pipeline")
MODES = ("open", "closed")
BACKENDS = ("local", "none")


@dataclass(frozen=True)
class LatencyPoint:
    """One latency run.  ``load`` is requests/s (open loop) or virtual users (closed loop)."""

    experiment: str
    endpoint: str = "cpu"
    mode: str = "open"
    load: float = 5.0
    contention: float = 0.0
    neighbour_workers: int = 2
    max_workers: int = 8
    semaphore: int | None = None
    seconds: float = 3.0
    warmup_seconds: float = 0.5
    settle_seconds: float = 0.3
    replicate: int = 0
    cpu_limit_cores: float | None = None
    cpu_elements: int = 3_000_000
    heavy_elements: int = PipelineConfig.heavy_elements
    light_elements: int = PipelineConfig.light_elements
    score_elements: int = PipelineConfig.score_elements
    timeout_seconds: float = 30.0
    max_requests: int = 10_000

    def __post_init__(self) -> None:
        if self.endpoint not in ENDPOINTS:
            raise SpecError(f"endpoint must be one of {', '.join(ENDPOINTS)}, got {self.endpoint!r}")
        if self.mode not in MODES:
            raise SpecError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if not 0 <= self.contention < 1:
            raise SpecError(f"contention must be a share in [0, 1), got {self.contention}")
        if self.load <= 0 or self.seconds <= 0:
            raise SpecError("load and seconds must be > 0")

    @property
    def config(self) -> str:
        """``workers=8,semaphore=none`` (same labels as the published semaphore data)."""
        return f"workers={self.max_workers},semaphore={self.semaphore or 'none'}"

    @property
    def run_id(self) -> str:
        sem = self.semaphore or 0
        return (f"{self.endpoint}-{self.mode}{self.load:g}-c{round(self.contention * 100):02d}"
                f"n{self.neighbour_workers}-w{self.max_workers}-s{sem}-r{self.replicate}")

    @property
    def path(self) -> str:
        return f"/cpu?n={self.cpu_elements}" if self.endpoint == "cpu" else "/pipeline"

    def pattern(self, seconds: float | None = None) -> OpenLoop | ClosedLoop:
        s = self.seconds if seconds is None else seconds
        if self.mode == "open":
            return OpenLoop(rate=self.load, duration_seconds=s, max_requests=self.max_requests)
        return ClosedLoop(vus=int(self.load), duration_seconds=s, max_requests=self.max_requests)

    def pipeline_config(self) -> PipelineConfig:
        return PipelineConfig(self.max_workers, self.semaphore, self.heavy_elements, self.light_elements,
                              self.score_elements)


@dataclass(frozen=True)
class LatencySweep:
    """A grid of latency points (see :meth:`from_mapping` for the keys)."""

    base: LatencyPoint
    loads: tuple[float, ...]
    contention: tuple[float, ...] = (0.0,)
    configs: tuple[dict, ...] = ({},)
    replicates: int = 1

    @classmethod
    def from_mapping(cls, doc: dict[str, Any], *, source: str = "sweep") -> LatencySweep:
        """Build from a mapping: any :class:`LatencyPoint` field as a fixed value, plus
        ``loads`` (list), ``contention`` (list of shares 0-1), ``configs`` (list of
        mappings of point fields, e.g. ``{max_workers: 8, semaphore: 4}``), ``replicates``."""
        if not isinstance(doc, dict):
            raise SpecError(f"{source}: a latency sweep is a mapping")
        doc = dict(doc)
        names = {f.name for f in fields(LatencyPoint)}
        loads = doc.pop("loads", None)
        if loads is None and "load" in doc:
            loads = [doc.pop("load")]
        contention = doc.pop("contention", [0.0])
        configs = doc.pop("configs", [{}]) or [{}]
        replicates = int(doc.pop("replicates", 1))
        unknown = set(doc) - names
        if unknown:
            raise SpecError(f"{source}: unknown key(s) {', '.join(sorted(unknown))}")
        for c in configs:
            if not isinstance(c, dict) or set(c) - names:
                raise SpecError(f"{source}: configs entries are mappings of point fields, got {c!r}")
        if not loads:
            raise SpecError(f"{source}: 'loads' must list at least one load")
        if "experiment" not in doc:
            raise SpecError(f"{source}: 'experiment' (a name) is required")
        try:
            base = LatencyPoint(**doc)
        except TypeError as exc:
            raise SpecError(f"{source}: {exc}") from None
        as_list = (lambda v: list(v) if isinstance(v, (list, tuple)) else [v])
        return cls(base, tuple(float(v) for v in as_list(loads)), tuple(float(v) for v in as_list(contention)),
                   tuple(configs), replicates)

    def points(self) -> list[LatencyPoint]:
        """Every point; replicates outermost so a partial sweep covers the whole grid once."""
        return [replace(self.base, load=ld, contention=c, replicate=r, **cfg)
                for r, cfg, ld, c in itertools.product(range(self.replicates), self.configs, self.loads, self.contention)]


# -- placement -------------------------------------------------------------------
@dataclass
class _Placement:
    """Where the service and the neighbour run (local cgroups or nowhere special)."""

    backend: str
    run_id: str
    cpu_limit_cores: float | None
    layout: Any = None
    cgroup: Any = None

    def __enter__(self) -> _Placement:
        if self.backend == "local":
            from throttlelab.experiment import cgroups

            self.layout = cgroups.detect_layout()
            self.cgroup = cgroups.Cgroup(self.layout, f"{cgroups.owner_name()}/latency-{self.run_id}").create()
            quota = None if self.cpu_limit_cores is None else round(self.cpu_limit_cores * 100_000)
            self.cgroup.set_limit(quota, 100_000)
        elif self.cpu_limit_cores is not None:
            raise SpecError("a CPU limit needs backend 'local' (a cgroup)")
        return self

    def service(self, config: PipelineConfig) -> ServiceProcess:
        if self.cgroup is None:
            return ServiceProcess(config)
        fds = self.cgroup.open_procs()

        def join() -> None:  # in the child, before exec: the service never runs outside its cgroup
            me = str(os.getpid()).encode()
            for fd in fds:
                os.write(fd, me)

        svc = ServiceProcess(config, preexec_fn=join)
        svc.on_start = lambda pid: [os.close(fd) for fd in fds]
        return svc

    def neighbour(self, share: float, workers: int):
        from throttlelab.experiment.neighbour import NoisyNeighbour

        if self.backend == "local":
            return NoisyNeighbour(share, workers, layout=self.layout)
        return NoisyNeighbour(share, workers, fallback=True, layout=_NoLayout())

    def counters(self):
        return self.cgroup.read() if self.cgroup is not None else None

    def __exit__(self, *exc) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()
            for d in self.cgroup.dirs:
                with contextlib.suppress(OSError):
                    d.parent.rmdir()


class _NoLayout:
    """A layout that makes NoisyNeighbour fall back (no cgroup wanted)."""

    def __getattr__(self, name):
        raise EnvironmentProblem("backend 'none': no cgroup")


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
    with _Placement(backend, point.run_id, point.cpu_limit_cores) as place:
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


# -- sweeps and the store ----------------------------------------------------------
def run_latency_sweep(sweep: LatencySweep, data_root: str | Path, *, backend: str = "local",
                      progress=None) -> Path:
    """Run every point not yet in ``<data_root>/<experiment>``; return that folder.

    ``progress`` is called with ``(index, total, point, row)`` after each point.
    """
    from throttlelab.experiment.run_store import RunStore

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


def _write_parquet(df: pl.DataFrame, path: Path) -> None:
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    df.write_parquet(tmp)
    os.replace(tmp, path)


def read_latency_store(directory: str | Path) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(runs, requests, stage_timings) of a latency experiment folder (canonical tables)."""
    from throttlelab.experiment.run_store import RunStore

    directory = Path(directory)
    runs = RunStore(directory).read_runs()
    out = []
    for name in ("requests", "stage_timings"):
        files = sorted((directory / name).glob("*.parquet"))
        out.append(tables.conform(pl.concat([pl.read_parquet(f) for f in files], how="diagonal_relaxed"), name)
                   if files else tables.empty(name))
    return runs, out[0], out[1]


def point_as_dict(point: LatencyPoint) -> dict[str, Any]:
    """The point's fields (for provenance)."""
    return asdict(point)
