"""HTTP front of the target service (stdlib ``http.server``, loopback only).

Endpoints (all ``GET``, all answer JSON):

``/health``
    ``{"status": "ok", "pid", "max_workers", "semaphore", "in_flight", "heavy_peak"}``
    (``heavy_peak``: most embedding stages ever running at once).
``/cpu?n=N``
    ``N`` trigonometric element evaluations in the request's own thread (the
    php-apache target of the contention paper); ``stages`` has one stage ``cpu``.
``/pipeline``
    The multi-stage pipeline (:mod:`.pipeline`); query parameters named after
    stages (``embedding=...``) override their work.  ``stages`` maps each stage
    to ``{"seconds", "wait_seconds", "run_seconds"}`` and ``total``.

Bad query parameters answer 400, unknown paths 404, a pipeline that is
shutting down 503.  Every response body carries ``ok`` and, on error, ``error``.
"""

from __future__ import annotations

import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from throttlelab.experiment.latency.service.pipeline import STAGES, Pipeline
from throttlelab.experiment.latency.service.work import MAX_ELEMENTS, burn

DEFAULT_CPU_ELEMENTS = 4_000_000


class BadRequest(ValueError):
    """A query parameter the service cannot use."""


def _int_param(query: dict[str, list[str]], name: str, default: int | None) -> int | None:
    if name not in query:
        return default
    raw = query[name][-1]
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"{name} must be an integer, got {raw!r}") from None
    if not 0 <= value <= MAX_ELEMENTS:
        raise BadRequest(f"{name} must be in [0, {MAX_ELEMENTS}], got {value}")
    return value


class ServiceServer(ThreadingHTTPServer):
    """A threading HTTP server that owns the pipeline and counts requests in flight."""

    daemon_threads = False  # server_close() waits for requests in flight (graceful stop)
    request_queue_size = 256  # listen backlog: bursts of an open-loop generator must not be refused

    def __init__(self, address: tuple[str, int], pipeline: Pipeline):
        super().__init__(address, Handler)
        self.pipeline = pipeline
        self.in_flight = 0
        self._lock = threading.Lock()

    def track(self, delta: int) -> None:
        with self._lock:
            self.in_flight += delta


class Handler(BaseHTTPRequestHandler):
    server: ServiceServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - stdlib signature
        pass  # no access log: it would cost CPU inside the measured cgroup

    def _send(self, code: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        self.server.track(1)
        try:
            if url.path == "/health":
                pipe = self.server.pipeline.config
                self._send(200, {"ok": True, "status": "ok", "pid": os.getpid(), "max_workers": pipe.max_workers,
                                 "semaphore": pipe.semaphore, "in_flight": self.server.in_flight,
                                 "heavy_peak": self.server.pipeline.heavy_peak})
            elif url.path == "/cpu":
                n = _int_param(query, "n", DEFAULT_CPU_ELEMENTS)
                t0 = time.perf_counter()
                burn(n)
                seconds = time.perf_counter() - t0
                self._send(200, {"ok": True, "n": n, "stages": {"cpu": {"seconds": seconds, "wait_seconds": 0.0,
                                                                         "run_seconds": seconds},
                                                                 "total": {"seconds": seconds}}})
            elif url.path == "/pipeline":
                overrides = {s: v for s in STAGES if (v := _int_param(query, s, None)) is not None}
                stages = self.server.pipeline.run(overrides)
                self._send(200, {"ok": True, "stages": stages})
            else:
                self._send(404, {"ok": False, "error": f"no endpoint {url.path}"})
        except BadRequest as exc:
            self._send(400, {"ok": False, "error": str(exc)})
        except RuntimeError as exc:  # pool shut down while stopping
            self._send(503, {"ok": False, "error": f"shutting down: {exc}"})
        finally:
            self.server.track(-1)
