"""Tests of throttlelab.experiment.latency.service.server: the HTTP endpoints, served in this process."""

from __future__ import annotations

import threading
import time

import pytest

from throttlelab.experiment.latency.service import STAGES, Pipeline, PipelineConfig
from throttlelab.experiment.latency.service.server import ServiceServer
from throttlelab.experiment.latency.service.work import CHUNK, MAX_ELEMENTS

from .service_helpers import get


@pytest.fixture
def server():
    pipe = Pipeline(PipelineConfig(max_workers=2, semaphore=1, heavy_elements=CHUNK * 2, light_elements=CHUNK,
                                   score_elements=CHUNK))
    srv = ServiceServer(("127.0.0.1", 0), pipe)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv, f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()
    pipe.close()


def test_health_cpu_and_pipeline(server):
    srv, url = server
    code, health = get(url + "/health")
    assert code == 200 and health["max_workers"] == 2 and health["semaphore"] == 1
    assert health["in_flight"] == 1  # this request
    code, body = get(url + f"/cpu?n={CHUNK}")
    assert code == 200 and body["n"] == CHUNK and body["stages"]["cpu"]["run_seconds"] > 0
    code, body = get(url + f"/pipeline?embedding={CHUNK}&score=0")
    assert code == 200 and set(body["stages"]) == {*STAGES, "total"}
    assert get(url + "/health")[1]["heavy_peak"] == 1
    deadline = time.monotonic() + 5  # the handler counts down just after its answer is sent
    while srv.in_flight and time.monotonic() < deadline:
        time.sleep(0.01)
    assert srv.in_flight == 0


@pytest.mark.parametrize("path, code, error", [
    ("/cpu?n=abc", 400, "n must be an integer, got 'abc'"),
    (f"/cpu?n={MAX_ELEMENTS + 1}", 400, f"n must be in [0, {MAX_ELEMENTS}]"),
    ("/pipeline?embedding=-1", 400, "embedding must be in"),
    ("/nope", 404, "no endpoint /nope"),
])
def test_bad_requests(server, path, code, error):
    got, body = get(server[1] + path)
    assert got == code and body["ok"] is False and error in body["error"]


def test_pipeline_shut_down_answers_503(server):
    srv, url = server
    srv.pipeline.close()
    code, body = get(url + "/pipeline")
    assert code == 503 and body["error"].startswith("shutting down")
