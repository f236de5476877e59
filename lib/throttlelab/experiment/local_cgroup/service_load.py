"""One service run: start the service in its cgroup, warm it up, measure throughput and latency.

The ``service`` workload (:func:`throttlelab.experiment.local_cgroup.workloads.build_command`)
is a long-running HTTP server; a run of it, inside the run's CPU-limited
cgroup, goes:

1. start the service, wait for its ``listening addr=...`` line (``ready_timeout_s``);
2. warm-up: closed loop with ``vus`` users for ``warmup_s`` (not recorded);
3. **closed loop at saturation**: ``vus`` users for ``window_s``:
   ``throughput_rps`` = answered requests / window;
4. **open loop at a fixed rate**: ``rate`` requests/s for ``window_s`` (evenly spaced, or
   ``poisson: true``: random arrivals at that mean rate):
   ``latency_p50/p90/p99/p999_seconds`` over every request sent, a request
   not answered ok counting as ``request_timeout_s`` (censored: a failure is
   never faster than the timeout, and never silently dropped); a percentile
   ``q`` needs at least ``1 / (1 - q)`` requests (p99: 100, p99.9: 1000),
   else it is null (the analysis then counts the run as lacking it);
5. stop the service.

``vus: 0`` skips step 3, ``rate: 0`` step 4.  The cgroup is sampled into the
monitor log all along; ``cpu_seconds`` and the throttling counters cover the
measurement windows only.  Every request is kept as rows of the canonical
``requests`` table next to the monitor log (``<run_id>.requests.parquet``).
The load generator runs outside the cgroup, on this machine (loopback only).
:func:`drive_service` (steps 2-4) is shared with the Kubernetes backend, which
runs the same service in a pod and reads its counters over HTTP
(:mod:`throttlelab.experiment.kubernetes.service_pod`).
"""

from __future__ import annotations

import re
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from throttlelab.errors import SpecError
from throttlelab.experiment.local_cgroup.loadgen import ClosedLoop, Labels, OpenLoop, run_load
from throttlelab.experiment.local_cgroup.cgroup_process import CgroupProcess
from throttlelab.experiment.local_cgroup.monitor_sampler import MonitorSampler

if TYPE_CHECKING:
    from throttlelab.experiment.local_cgroup.cgroups import Cgroup, Counters
    from throttlelab.experiment.sweeps.plan import RunPlan, Workload
    from throttlelab.experiment.sweeps.spec import SweepSpec

READY = re.compile(r"listening addr=(?P<addr>\S+) gomaxprocs=(?P<procs>\d+)")
PERCENTILES = {"latency_p50_seconds": 50.0, "latency_p90_seconds": 90.0, "latency_p99_seconds": 99.0,
               "latency_p999_seconds": 99.9}
DEFAULTS = {"vus": 16, "rate": 100.0, "warmup_s": 1.0, "window_s": 5.0, "request_timeout_s": 2.0,
            "ready_timeout_s": 10.0}


def service_options(workload: Workload) -> dict[str, float]:
    """The load options of a service workload, checked (``SpecError`` naming the bad one)."""
    out = {}
    poisson = workload.option("poisson") or False
    if not isinstance(poisson, bool):
        raise SpecError(f"service workload option 'poisson' must be true or false, got {poisson!r}")
    out["poisson"] = float(poisson)
    for key, default in DEFAULTS.items():
        value = workload.option(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise SpecError(f"service workload option '{key}' must be a number >= 0, got {value!r}")
        out[key] = float(value)
    if out["window_s"] <= 0 or out["request_timeout_s"] <= 0:
        raise SpecError("service workload options 'window_s' and 'request_timeout_s' must be > 0")
    if out["vus"] == 0 and out["rate"] == 0:
        raise SpecError("a service workload needs 'vus' (closed loop) or 'rate' (open loop) > 0")
    return out


def check_service_spec(spec: SweepSpec) -> None:
    """Check a service sweep before it starts: its options, and that a run fits in ``timeout_s``.

    Raises
    ------
    SpecError
        Naming the spec file and the option.
    """
    if spec.workload.kind != "service":
        return
    where = spec.source or "<spec>"
    try:
        opts = service_options(spec.workload)
    except SpecError as exc:
        raise SpecError(f"{where}: {exc}") from None
    need = opts["ready_timeout_s"] + opts["warmup_s"] + 2 * (opts["window_s"] + opts["request_timeout_s"])
    if need > spec.timeout_s:
        raise SpecError(f"{where}: key 'timeout_s': a service run may take up to {need:g} s (ready + warm-up + two "
                        f"windows + request timeouts), more than timeout_s = {spec.timeout_s:g}")


def latency_percentiles(requests: pl.DataFrame, timeout_s: float) -> dict[str, float | None]:
    """p50/p90/p99/p99.9 over every request; a request not ``ok`` counts as ``timeout_s``.

    A percentile ``q`` from fewer than ``1 / (1 - q)`` requests is null: a
    p99.9 of 240 requests would only be their maximum.

    Examples
    --------
    >>> df = pl.DataFrame({"status": ["ok"] * 99 + ["timeout"], "latency_seconds": [0.01] * 99 + [None]})
    >>> p = latency_percentiles(df, 2.0)
    >>> p["latency_p99_seconds"] > 0.01, p["latency_p999_seconds"] is None
    (True, True)
    """
    lat = requests.select(pl.when(pl.col("status") == "ok").then(pl.col("latency_seconds"))
                          .otherwise(timeout_s).fill_null(timeout_s))["latency_seconds"].to_numpy()
    return {k: float(np.percentile(lat, q, method="linear")) if len(lat) >= round(100 / (100 - q)) else None
            for k, q in PERCENTILES.items()}


def run_service(argv: list[str], env: dict[str, str], cg: Cgroup, plan: RunPlan, monitor_log: Path,
                output: Path) -> dict[str, Any]:
    """Run one service plan in ``cg`` (see the module doc); the runs-row measurement columns.

    A service that never becomes ready gives a ``failed`` row (the sweep goes on).
    """
    try:
        return _run_service(argv, env, cg, plan, monitor_log, output)
    except _NotReady as exc:
        return {"status": "failed", "error": str(exc)}


def _run_service(argv: list[str], env: dict[str, str], cg: Cgroup, plan: RunPlan, monitor_log: Path,
                 output: Path) -> dict[str, Any]:
    opts = service_options(plan.workload)
    proc = CgroupProcess(argv, cgroup=cg, env=env, output=output)
    labels = Labels(experiment=plan.experiment, run_id=plan.run_id, config=f"threads={plan.threads}")
    out: dict[str, Any] = {}
    stop = threading.Event()
    with MonitorSampler(cg, monitor_log, interval_s=plan.sampling_interval_s, pod=plan.run_id) as sampler:
        sampler.sample()
        lock = threading.Lock()

        def sample_loop() -> None:
            while not stop.wait(plan.sampling_interval_s):
                with lock:
                    sampler.sample()

        def snapshot() -> Counters:
            with lock:
                return sampler.sample()

        ticker = threading.Thread(target=sample_loop, daemon=True)
        try:
            proc.start()
            ticker.start()
            addr, procs = _wait_ready(proc, output, opts["ready_timeout_s"])
            out.update(started_at=proc.started_at, threads_effective=procs)
            out.update(drive_service(f"http://{addr}", opts, labels, snapshot, monitor_log))
        except BaseException:
            stop.set()
            proc.kill()
            raise
        finally:
            stop.set()
        proc.kill()
        proc.wait(10)
        with lock:
            sampler.sample()
    return out


def drive_service(base_url: str, opts: dict[str, float], labels: Labels, snapshot: Callable[[], Counters],
                  monitor_log: Path) -> dict[str, Any]:
    """Warm-up, then the closed-loop and open-loop windows against ``base_url`` (see the module doc).

    ``snapshot()`` reads the service's cgroup counters; it is called right
    before the first window and right after the last, so ``cpu_seconds`` and
    the throttling counters cover the measurement windows only.  Every request
    is written to ``<monitor_log stem>.requests.parquet``.

    Returns
    -------
    dict
        The runs-row measurement columns: ``load``, ``throughput_rps``,
        ``latency_p50/p90/p99/p999_seconds``, ``wall_seconds`` (the windows),
        ``cpu_seconds``, ``nr_periods``, ``nr_throttled``, ``throttled_seconds``,
        ``requests_ok``, ``requests_failed``, ``exit_code``, ``status``, ``error``.
    """
    url = f"{base_url}/work"
    timeout = opts["request_timeout_s"]
    out: dict[str, Any] = {"load": opts["rate"] or None}
    if opts["warmup_s"] > 0:
        run_load(url, ClosedLoop(vus=int(opts["vus"] or 4), duration_seconds=opts["warmup_s"],
                                 max_requests=200_000), labels=labels, timeout_seconds=timeout)
    first = snapshot()
    t0 = time.perf_counter()
    frames, ok, failed = [], 0, 0
    if opts["vus"] > 0:
        res = run_load(url, ClosedLoop(vus=int(opts["vus"]), duration_seconds=opts["window_s"],
                                       max_requests=200_000), labels=labels, timeout_seconds=timeout)
        n_ok = int((res.requests["status"] == "ok").sum())
        out["throughput_rps"] = n_ok / opts["window_s"]
        ok, failed = ok + n_ok, failed + res.requests.height - n_ok
        frames.append(res.requests)
    if opts["rate"] > 0:
        res = run_load(url, OpenLoop(rate=opts["rate"], duration_seconds=opts["window_s"], poisson=bool(opts["poisson"]),
                                     seed=zlib.crc32(labels.run_id.encode()),
                                     max_requests=200_000), labels=labels, timeout_seconds=timeout)
        n_ok = int((res.requests["status"] == "ok").sum())
        out.update(latency_percentiles(res.requests, timeout))
        ok, failed = ok + n_ok, failed + res.requests.height - n_ok
        frames.append(res.requests)
    wall = time.perf_counter() - t0
    last = snapshot()
    if frames:
        pl.concat(frames, how="diagonal_relaxed").write_parquet(Path(monitor_log).with_suffix(".requests.parquet"))
    out.update(
        wall_seconds=wall, cpu_seconds=last.cpu_seconds - first.cpu_seconds,
        nr_periods=last.nr_periods - first.nr_periods, nr_throttled=last.nr_throttled - first.nr_throttled,
        throttled_seconds=last.throttled_seconds - first.throttled_seconds,
        requests_ok=ok, requests_failed=failed, exit_code=0, status="ok", error=None,
    )
    if ok == 0:
        out.update(status="failed", error="the service answered no request ok")
    return out


def _wait_ready(proc: CgroupProcess, output: Path, timeout_s: float) -> tuple[str, int]:
    """The service's address and GOMAXPROCS from its ``listening`` line."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            m = READY.search(output.read_text(errors="replace"))
        except OSError:
            m = None
        if m:
            return m["addr"], int(m["procs"])
        if proc.wait(0.05):
            raise _NotReady(f"the service exited before listening: {output.read_text(errors='replace')[-300:]}")
    raise _NotReady(f"the service did not print 'listening addr=...' within {timeout_s:g} s")


class _NotReady(RuntimeError):
    """The service never became ready (the run fails; the sweep goes on)."""
