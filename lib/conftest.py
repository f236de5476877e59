"""What the docstring examples get when the tests run them (``pytest --doctest-modules lib``, part of ``make test``).

* Each example runs in a temporary working folder of its own: a file it writes lands there, never in the repo.
* ``prometheus_url``: a loopback server that answers ``/api/v1/query`` as the Prometheus HTTP API documents it
  (one ``up`` series), for the examples of the Prometheus client.

Examples that read bundled data find it through the package (``PUBLISHED_DIR``), and examples that draw random
numbers pass their seeds, so nothing else is set up here.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

#: The instant-vector answer of the stub Prometheus (the API's JSON envelope).
UP_ANSWER = {"status": "success", "data": {"resultType": "vector", "result": [
    {"metric": {"__name__": "up", "job": "prometheus"}, "value": [1700000000, "1"]}]}}


class _Prometheus(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (the http.server name); the client sends its queries as a POSTed form
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        found = self.path.split("?", 1)[0] == "/api/v1/query"
        body = json.dumps(UP_ANSWER if found else {"status": "error", "errorType": "not_found",
                                                     "error": self.path}).encode()
        self.send_response(200 if found else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def stub_prometheus_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Prometheus)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def _doctest_setup(request, doctest_namespace, tmp_path, monkeypatch):
    from _pytest.doctest import DoctestItem

    if not isinstance(request.node, DoctestItem):
        return
    monkeypatch.chdir(tmp_path)
    if "prometheus_api" in request.node.name:
        doctest_namespace["prometheus_url"] = request.getfixturevalue("stub_prometheus_url")
