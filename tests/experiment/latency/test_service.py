"""The target service: kernels, pipeline, and the real HTTP server in its own process."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import pytest

from throttlelab.experiment.latency.service import STAGES, Pipeline, PipelineConfig, ServiceProcess
from throttlelab.experiment.latency.service.work import CHUNK, MAX_ELEMENTS, burn

SMALL = PipelineConfig(max_workers=2, heavy_elements=CHUNK * 4, light_elements=CHUNK, score_elements=CHUNK)


def get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_burn_is_deterministic_and_bounded():
    assert burn(CHUNK * 2) == burn(CHUNK * 2)
    assert burn(0) == burn(1)  # at least one chunk
    with pytest.raises(ValueError):
        burn(-1)
    with pytest.raises(ValueError):
        burn(MAX_ELEMENTS + 1)


def test_pipeline_times_every_stage():
    pipe = Pipeline(SMALL)
    try:
        out = pipe.run()
    finally:
        pipe.close()
    assert set(out) == {*STAGES, "total"}
    for stage in STAGES:
        t = out[stage]
        assert t["seconds"] >= t["run_seconds"] > 0
        assert t["wait_seconds"] >= 0
    assert out["total"]["seconds"] >= out["embedding"]["seconds"]


def test_semaphore_limits_concurrent_heavy_stages():
    pipe = Pipeline(PipelineConfig(max_workers=6, semaphore=2, heavy_elements=CHUNK * 30,
                                   light_elements=CHUNK, score_elements=CHUNK))
    threads = [threading.Thread(target=pipe.run) for _ in range(6)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        pipe.close()
    assert 1 <= pipe.heavy_peak <= 2


def test_config_rejects_nonsense():
    with pytest.raises(ValueError):
        PipelineConfig(max_workers=0)
    with pytest.raises(ValueError):
        PipelineConfig(semaphore=0)


def test_service_process_endpoints_and_graceful_stop():
    svc = ServiceProcess(PipelineConfig(max_workers=3, semaphore=1, heavy_elements=CHUNK * 4,
                                        light_elements=CHUNK, score_elements=CHUNK))
    with svc:
        assert svc.url.startswith("http://127.0.0.1:")
        health = svc.health()
        assert health["status"] == "ok" and health["max_workers"] == 3 and health["semaphore"] == 1
        assert health["pid"] == svc.pid
        code, body = get(svc.url + f"/cpu?n={CHUNK}")
        assert code == 200 and body["n"] == CHUNK and body["stages"]["cpu"]["seconds"] > 0
        code, body = get(svc.url + f"/pipeline?embedding={CHUNK}")
        assert code == 200 and set(body["stages"]) == {*STAGES, "total"}
        assert get(svc.url + "/cpu?n=abc")[0] == 400
        assert get(svc.url + f"/cpu?n={MAX_ELEMENTS + 1}")[0] == 400
        assert get(svc.url + "/nope")[0] == 404
    assert svc.stop() == 0  # SIGTERM -> clean exit
    assert not svc.alive()


def test_request_in_flight_finishes_on_sigterm():
    svc = ServiceProcess(SMALL).start()
    result = {}

    def slow():  # about a second of CPU: still running when SIGTERM arrives
        result["answer"] = get(svc.url + "/cpu?n=60000000")

    t = threading.Thread(target=slow)
    t.start()
    import time

    deadline = time.monotonic() + 10
    while svc.health()["in_flight"] < 2 and time.monotonic() < deadline:  # the slow one + this health check
        time.sleep(0.02)
    assert svc.stop(grace=30) == 0
    t.join()
    assert result["answer"][0] == 200


def test_service_refuses_non_loopback_bind():
    out = subprocess.run([sys.executable, "-m", "throttlelab.experiment.latency.service", "--host", "0.0.0.0"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "non-loopback" in out.stdout


def test_service_that_cannot_start_is_a_clear_error():
    from throttlelab.errors import EnvironmentProblem

    svc = ServiceProcess(PipelineConfig(max_workers=1), ready_timeout=20)
    svc.command = lambda: [sys.executable, "-c", "import sys; sys.exit(3)"]
    with pytest.raises(EnvironmentProblem, match="exited with 3"):
        svc.start()
