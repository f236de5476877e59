"""The Prometheus client's transport against small HTTP(S) servers: unreachable, 5xx, auth, bad setup and TLS."""

from __future__ import annotations

import http.server
import json
import threading

import pytest

from throttlelab.ingest.prometheus.prometheus_answers import PrometheusError
from throttlelab.ingest.prometheus.prometheus_api import PrometheusAPI
from throttlelab.ingest.prometheus.prometheus_local import free_port


class _Handler(http.server.BaseHTTPRequestHandler):
    seen: list = []

    def _answer(self):
        _Handler.seen.append({"Authorization": self.headers.get("Authorization")})
        if self.path.startswith("/broken"):
            self.send_response(503)
            self.end_headers()
            self.wfile.write(b"upstream overloaded")
            return
        if self.path.startswith("/html"):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"<html>login</html>")
            return
        if self.headers.get("Authorization") is None:
            self.send_response(401)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps({"status": "success", "data": {"resultType": "vector", "result": []}}).encode())

    do_GET = do_POST = _answer

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def http_server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()


def test_unreachable_server_is_one_line():
    api = PrometheusAPI(f"http://127.0.0.1:{free_port()}", timeout=3)
    with pytest.raises(PrometheusError, match="cannot reach Prometheus \\(connection refused\\)") as e:
        api.query("up")
    assert "\n" not in str(e.value)


def test_5xx_and_non_api_answers(http_server):
    with pytest.raises(PrometheusError, match="HTTP 503: upstream overloaded"):
        PrometheusAPI(http_server + "/broken").query("up")
    with pytest.raises(PrometheusError, match="not a Prometheus API answer"):
        PrometheusAPI(http_server + "/html").query("up")
    with pytest.raises(PrometheusError, match="HTTP 503: upstream overloaded"):
        PrometheusAPI(http_server + "/broken").series("up", 0, 1)
    with pytest.raises(PrometheusError, match="not a Prometheus API answer"):
        PrometheusAPI(http_server + "/html").series("up", 0, 1)


def test_401_says_what_to_check(http_server, monkeypatch):
    monkeypatch.delenv("PROMETHEUS_USERNAME", raising=False)
    with pytest.raises(PrometheusError, match="HTTP 401 \\(check --bearer-token-file"):
        PrometheusAPI(http_server).query("up")


def test_bearer_token_and_basic_auth_are_sent(http_server, tmp_path, monkeypatch):
    token = tmp_path / "token"
    token.write_text("s3cret\n")
    assert PrometheusAPI(http_server, bearer_token_file=str(token)).query("up") == []
    assert _Handler.seen[-1]["Authorization"] == "Bearer s3cret"
    monkeypatch.setenv("PROMETHEUS_USERNAME", "ann")
    monkeypatch.setenv("PROMETHEUS_PASSWORD", "pw")
    PrometheusAPI(http_server).query("up")
    assert _Handler.seen[-1]["Authorization"] == "Basic YW5uOnB3"  # base64("ann:pw")


def test_bad_setup_is_refused_before_any_request(tmp_path):
    with pytest.raises(PrometheusError, match="cannot read the bearer token file"):
        PrometheusAPI("http://127.0.0.1:1", bearer_token_file=str(tmp_path / "missing"))
    with pytest.raises(PrometheusError, match="CA file not found"):
        PrometheusAPI("https://127.0.0.1:1", ca_file=str(tmp_path / "ca.pem"))
    with pytest.raises(PrometheusError, match="not an http"):
        PrometheusAPI("127.0.0.1:9090")


@pytest.fixture(scope="module")
def https_server(tmp_path_factory):
    """The small server behind TLS with a self-signed certificate for 127.0.0.1 (made by openssl)."""
    import shutil
    import ssl
    import subprocess

    if not shutil.which("openssl"):
        pytest.skip("no openssl")
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(d / "key.pem"), "-out", str(d / "cert.pem")],
                   check=True, capture_output=True)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(d / "cert.pem", d / "key.pem")
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"https://127.0.0.1:{srv.server_address[1]}", str(d / "cert.pem")
    srv.shutdown()


def test_tls_verification_is_on_by_default(https_server, tmp_path):
    url, ca = https_server
    token = tmp_path / "t"
    token.write_text("x")
    with pytest.raises(PrometheusError, match="cannot reach Prometheus \\(certificate verify failed\\)"):
        PrometheusAPI(url, bearer_token_file=str(token), timeout=5).query("up")
    assert PrometheusAPI(url, bearer_token_file=str(token), ca_file=ca).query("up") == []
    assert PrometheusAPI(url, bearer_token_file=str(token), insecure_skip_tls_verify=True).query("up") == []
