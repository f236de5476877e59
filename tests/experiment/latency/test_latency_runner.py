"""Latency runner: one point with and without cgroups, the run store."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import polars as pl
import pytest

from throttlelab import tables
from throttlelab.experiment.latency.latency_runner import run_latency_sweep, run_point
from throttlelab.experiment.stores import read_latency_store
from throttlelab.experiment.latency.latency_sweep import LatencyPoint, LatencySweep
from throttlelab.experiment.latency.service.work import CHUNK

LIGHT = dict(cpu_elements=CHUNK * 4, heavy_elements=CHUNK * 4, light_elements=CHUNK, score_elements=CHUNK,
             warmup_seconds=0.1, settle_seconds=0.05)


def cgroups_available() -> tuple[bool, str]:
    try:
        from throttlelab.experiment.local_cgroup.local_backend import local_backend_available
    except ImportError as exc:  # pragma: no cover
        return False, str(exc)
    return local_backend_available()


def test_point_without_cgroup_records_every_request():
    res = run_point(LatencyPoint("t", endpoint="pipeline", mode="closed", load=2, seconds=0.5, max_workers=2,
                                 **LIGHT), backend="none")
    assert res.row["status"] == "ok" and res.row["exit_code"] == 0
    assert res.row["requests"] == res.load.requests.height > 0
    assert tables.validate(res.load.requests, "requests") == []
    assert set(res.load.stage_timings["stage"]) >= {"embedding", "score", "total"}
    assert res.load.requests["config"].unique().to_list() == ["workers=2,semaphore=none"]


@pytest.mark.cgroup
def test_point_in_cgroup_with_neighbour_counts_cpu():
    ok, why = cgroups_available()
    if not ok:
        pytest.skip(f"no writable CPU cgroup: {why}")
    res = run_point(LatencyPoint("t", endpoint="cpu", mode="open", load=10, seconds=0.6, contention=0.3,
                                 neighbour_workers=2, cpu_limit_cores=1.0, **LIGHT), backend="local")
    assert res.row["status"] == "ok"
    assert res.row["neighbour_mode"] == "cgroup" and res.row["neighbour_cpu_seconds"] > 0
    assert res.row["cpu_seconds"] > 0 and res.row["nr_periods"] > 0
    assert res.load.requests["contention"].unique().to_list() == [0.3]


def test_sweep_writes_store_and_resumes(tmp_path):
    sw = LatencySweep.from_mapping({"experiment": "lat", "endpoint": "cpu", "mode": "open", "loads": [10],
                                    "contention": [0.0], "configs": [{"max_workers": 2}, {"max_workers": 3}],
                                    "seconds": 0.3, **LIGHT})
    seen = []
    folder = run_latency_sweep(sw, tmp_path, backend="none", progress=lambda i, n, p, r: seen.append(p.run_id))
    assert len(seen) == 2
    runs, req, st = read_latency_store(folder)
    assert runs.height == 2 and set(runs["status"]) == {"ok"}
    assert req.height == 6 and set(req["run_id"]) == set(seen)
    assert tables.validate(st, "stage_timings") == []
    run_latency_sweep(sw, tmp_path, backend="none", progress=lambda i, n, p, r: seen.append("again"))
    assert "again" not in seen  # resumed: nothing re-run


def _our_service_pid() -> int | None:
    """Pid of a target service started by this test process (a child running throttlelab.experiment.latency.service)."""
    me = str(os.getpid())
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            ppid = (proc / "stat").read_text().rsplit(")", 1)[1].split()[1]
            cmd = (proc / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if ppid == me and b"throttlelab.experiment.latency.service" in cmd:
            return int(proc.name)
    return None


def _listening(pid: int) -> bool:
    """Whether ``pid`` has a listening TCP socket (the service is up and past its start-up)."""
    try:
        inodes = {os.readlink(f"/proc/{pid}/fd/{fd}")[8:-1] for fd in os.listdir(f"/proc/{pid}/fd")}
        rows = Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return False
    return any(r.split()[3] == "0A" and r.split()[9] in inodes for r in rows)


def _kill_service_once_serving(after: float, found: dict, stop: threading.Event) -> None:
    """SIGKILL the service ``after`` seconds after it started listening (the run's load is then under way)."""
    while not stop.is_set():
        pid = _our_service_pid()
        if pid is not None and _listening(pid):
            time.sleep(after)
            os.kill(pid, signal.SIGKILL)  # that one process, by its id
            found["pid"] = pid
            return
        time.sleep(0.02)


def test_service_killed_mid_run_is_recorded_in_the_run_row_and_its_requests(tmp_path):
    # warm-up 0.1 s, then 3 s of open-loop load at 10 requests/s: a kill 0.6 s after the service listens lands in it
    sw = LatencySweep.from_mapping({"experiment": "dies", "endpoint": "cpu", "mode": "open", "loads": [10],
                                    "contention": [0.0], "seconds": 3.0, "timeout_seconds": 5.0, **LIGHT})
    found, stop = {}, threading.Event()
    killer = threading.Thread(target=_kill_service_once_serving, args=(0.6, found, stop), daemon=True)
    killer.start()
    try:
        folder = run_latency_sweep(sw, tmp_path, backend="none")
    finally:
        stop.set()
        killer.join(timeout=5)
    assert "pid" in found, "the service was never seen listening"
    runs, req, _ = read_latency_store(folder)
    row = runs.row(0, named=True)
    assert row["status"] == "failed" and "the service died during the run" in row["error"]
    assert row["exit_code"] == -signal.SIGKILL
    # every scheduled arrival has a row (10/s x 3 s): failed requests are counted, never dropped
    assert req.height == 30 and req["request_id"].to_list() == list(range(30))
    failed = req.filter(pl.col("status") != "ok")
    assert failed.height > 0 and set(failed["status"]) <= {"refused", "error", "timeout"}
    assert failed["latency_seconds"].null_count() == failed.height and failed["error"].null_count() == 0
    assert f"({failed.height} requests failed)" in row["error"]
    stored = runs.select("run_id").to_series().to_list()
    assert stored == [sw.points()[0].run_id]
