"""Tests of throttlelab.experiment.latency.service.service_process: the real HTTP service in its own process."""

from __future__ import annotations

import sys
import threading

import pytest

from throttlelab.experiment.latency.service import STAGES, PipelineConfig, ServiceProcess
from throttlelab.experiment.latency.service.work import CHUNK, MAX_ELEMENTS

from .service_helpers import SMALL, get


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


def test_service_that_cannot_start_is_a_clear_error():
    from throttlelab.errors import EnvironmentProblem

    svc = ServiceProcess(PipelineConfig(max_workers=1), ready_timeout=20)
    svc.command = lambda: [sys.executable, "-c", "import sys; sys.exit(3)"]
    with pytest.raises(EnvironmentProblem, match="exited with 3"):
        svc.start()
