"""Load generator against real servers on loopback: every request is recorded."""

from __future__ import annotations

import socket
import threading

import pytest

from throttlelab import tables
from throttlelab.errors import SpecError
from throttlelab.experiment.local_cgroup.loadgen import ClosedLoop, Labels, OpenLoop, require_loopback, run_load
from throttlelab.experiment.latency.service import PipelineConfig, ServiceProcess
from throttlelab.experiment.latency.service.work import CHUNK

TINY = PipelineConfig(max_workers=2, heavy_elements=CHUNK * 2, light_elements=CHUNK, score_elements=CHUNK)


@pytest.fixture(scope="module")
def service():
    with ServiceProcess(TINY) as svc:
        yield svc


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("url", ["http://127.0.0.1:1/", "http://localhost:1/x", "http://[::1]:1/"])
def test_loopback_targets_are_accepted(url):
    assert require_loopback(url)[1] == 1


@pytest.mark.parametrize("url", ["http://10.1.2.3:80/", "http://8.8.8.8/", "https://127.0.0.1/", "ftp://127.0.0.1/",
                                 "http:///nohost"])
def test_other_targets_are_refused(url):
    with pytest.raises(SpecError):
        require_loopback(url)


def test_bounds_are_enforced():
    with pytest.raises(SpecError):
        run_load("http://127.0.0.1:1/", OpenLoop(rate=1, duration_seconds=10_000))
    with pytest.raises(SpecError):
        run_load("http://127.0.0.1:1/", ClosedLoop(vus=1, duration_seconds=1, max_requests=0))


def test_open_loop_sends_rate_times_duration(service):
    res = run_load(service.url + f"/cpu?n={CHUNK}", OpenLoop(rate=20, duration_seconds=1.0),
                   labels=Labels(experiment="t", run_id="r1", endpoint="cpu", contention=0.2))
    assert tables.validate(res.requests, "requests") == []
    assert tables.validate(res.stage_timings, "stage_timings") == []
    assert res.requests.height == 20
    assert res.requests["request_id"].to_list() == list(range(20))
    assert res.status_counts() == {"ok": 20}
    assert res.requests["load"].unique().to_list() == [20.0]
    assert res.requests["contention"].unique().to_list() == [0.2]
    assert set(res.stage_timings["stage"]) == {"cpu", "total"}


def test_open_loop_respects_max_requests_and_poisson(service):
    res = run_load(service.url + f"/cpu?n={CHUNK}", OpenLoop(rate=50, duration_seconds=1.0, max_requests=7, poisson=True))
    assert 0 < res.requests.height <= 7


def test_closed_loop_records_stage_timings(service):
    res = run_load(service.url + "/pipeline", ClosedLoop(vus=3, duration_seconds=30, max_requests=12),
                   labels=Labels(config="workers=2"))
    assert res.requests.height == 12 and res.status_counts() == {"ok": 12}
    assert set(res.requests["vu"]) <= {0, 1, 2}
    per_req = res.stage_timings.group_by("request_id").len()
    assert per_req["len"].unique().to_list() == [6]  # five stages + total
    assert (res.stage_timings["wait_seconds"].drop_nulls() >= 0).all()


def test_refused_connections_are_counted_not_dropped():
    res = run_load(f"http://127.0.0.1:{free_port()}/cpu", OpenLoop(rate=20, duration_seconds=0.5))
    assert res.status_counts() == {"refused": 10}
    assert res.requests["latency_seconds"].null_count() == 10
    assert res.requests["error"].null_count() == 0


def test_silent_target_times_out():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)  # accepts connections in the kernel, never answers
    try:
        res = run_load(f"http://127.0.0.1:{sock.getsockname()[1]}/", ClosedLoop(vus=2, duration_seconds=0.2),
                       timeout_seconds=0.3)
    finally:
        sock.close()
    assert res.requests.height >= 2
    assert set(res.status_counts()) == {"timeout"}


def test_target_dying_mid_run_is_recorded():
    svc = ServiceProcess(TINY).start()
    killer = threading.Timer(0.5, svc.kill)
    killer.start()
    try:
        res = run_load(svc.url + f"/cpu?n={CHUNK}", OpenLoop(rate=20, duration_seconds=1.5), timeout_seconds=5)
    finally:
        killer.cancel()
        svc.stop()
    counts = res.status_counts()
    assert res.requests.height == 30  # every planned arrival has a row
    assert counts.get("ok", 0) > 0
    assert counts.get("refused", 0) + counts.get("error", 0) > 0


def test_in_flight_cap_records_dropped_arrivals(service):
    res = run_load(service.url + "/cpu?n=20000000", OpenLoop(rate=40, duration_seconds=0.5, max_in_flight=1))
    counts = res.status_counts()
    assert res.requests.height == 20
    assert counts.get("dropped", 0) > 0
    assert res.requests.filter(status="dropped")["error"].str.contains("in flight").all()


def test_http_errors_are_errors(service):
    res = run_load(service.url + "/cpu?n=bad", ClosedLoop(vus=1, duration_seconds=5, max_requests=2))
    assert res.status_counts() == {"error": 2}
    assert res.requests["http_status"].to_list() == [400, 400]
    assert res.requests["error"].str.contains("integer").all()


def test_targets_on_a_project_interface_are_allowed_others_refused():
    """Pods of the one-node cluster sit on a project-made ``tl-*`` bridge: allowed; other addresses are not."""
    import os
    import subprocess

    from throttlelab.errors import SpecError
    from throttlelab.experiment.local_cgroup.loadgen import require_loopback

    if os.geteuid() != 0:
        pytest.skip("needs root to create an interface")
    name = "tl-lgtest0"
    subprocess.run(["ip", "link", "add", name, "type", "bridge"], check=True)
    try:
        subprocess.run(["ip", "addr", "add", "198.19.77.1/24", "dev", name], check=True)
        assert require_loopback("http://198.19.77.5:8080/cpu") == ("198.19.77.5", 8080)
        with pytest.raises(SpecError, match="non-loopback"):
            require_loopback("http://198.19.78.5:8080/cpu")
    finally:
        subprocess.run(["ip", "link", "del", name], check=False)
    with pytest.raises(SpecError, match="non-loopback"):
        require_loopback("http://198.19.77.5:8080/cpu")
