"""The Prometheus client against real servers: the Debian prometheus, and a small HTTP server for 5xx and auth."""

from __future__ import annotations

import http.server
import json
import threading

import numpy as np
import pytest

from throttlelab.ingest.prometheus.prometheus_api import (PrometheusAPI, PrometheusError, _matrix_points, format_duration,
                                                         parse_duration)
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


@pytest.mark.prometheus
def test_real_prometheus_4xx_and_range_split(prometheus_scenarios):
    url, _, end = prometheus_scenarios
    api = PrometheusAPI(url)
    with pytest.raises(PrometheusError, match="HTTP 400.*bad_data"):
        api.query("sum(")
    with pytest.raises(PrometheusError, match="HTTP 404"):
        PrometheusAPI(url + "/no/such/prefix").query("up")
    # 3 days at 15 s = 17,280 steps: more than 11,000, so two requests, joined without a gap or a duplicate
    q0 = api.queries
    series = api.query_range('sum(rate(container_cpu_usage_seconds_total{pod="wellsized-0"}[1m]))', end - 72 * 3600 + 60,
                             end, 15)
    assert api.queries - q0 == 2
    t = series[0].times
    assert len(t) == len(set(t)) and (t[1:] - t[:-1] == 15).all()
    # the series API: the label sets of the series with samples in the window, as the instant query over it counts
    q = 'container_cpu_usage_seconds_total{container!="",container!="POD"}'
    found = api.series(q, end - 3600, end)
    counted = api.query_values(f"count by (namespace, pod, container) (last_over_time({q}[1h]))", time=end)
    keys = [tuple(s[k] for k in ("namespace", "pod", "container")) for s in found]
    assert found and {k: keys.count(k) for k in keys} == {k: int(v) for k, v in counted.items()}
    assert api.series_keys(q, end - 3600, end, ("namespace", "pod", "container")) == {k: keys.count(k) for k in keys}
    assert api.series(q, end + 86400, end + 2 * 86400) == []
    with pytest.raises(PrometheusError, match="HTTP 400.*bad_data") as e:
        api.series("sum(x)", end - 3600, end)
    assert "\n" not in str(e.value)


@pytest.mark.prometheus
def test_real_prometheus_other_shapes_and_special_values(prometheus_scenarios):
    url, _, end = prometheus_scenarios
    api = PrometheusAPI(url)
    # a scalar answer is not a vector: one clear line, not a decoding traceback
    with pytest.raises(PrometheusError, match="expected an instant vector for 'scalar\\(vector\\(1\\)\\)', got scalar"):
        api.query("scalar(vector(1))")
    with pytest.raises(PrometheusError, match="HTTP 400: bad_data: invalid expression type \"string\""):
        api.query_range('"x"', end - 600, end, 60)
    # NaN and infinities arrive as strings and come out as floats
    (series,) = api.query_range("vector(0) / vector(0)", end - 120, end, 60)
    assert len(series.values) == 3 and np.isnan(series.values).all()
    (inf,) = api.query("vector(1) / vector(0)")
    assert inf["value"][1] == "+Inf"
    assert api.query_values("vector(-1) / vector(0)", keys=())[()] == float("-inf")


def test_range_values_parse_exactly_and_bad_points_are_one_line():
    # every float as Python's own parser reads it (correctly rounded), whitespace of a pretty-printing server ignored
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.lognormal(-3, 3, 2000), [0.0, 1e-300, 5e-324, 1.7976931348623157e308]])
    raw = "[" + ",".join(f'[{1767225600 + 30 * i}.5,"{v!r}"]' for i, v in enumerate(values.tolist())) + "]"
    pretty = b'[ [1, "NaN"],\n [2, "+Inf"], [3, "-Inf"] ]'
    (t, v), (t0, v0), (t2, v2) = _matrix_points([raw.encode(), b"[]", pretty])
    assert np.array_equal(v, values) and np.array_equal(t, 1767225600.5 + 30 * np.arange(len(values)))
    assert len(t0) == len(v0) == 0 and t2.tolist() == [1, 2, 3] and np.isnan(v2[0]) and v2[1:].tolist() == [np.inf, -np.inf]
    v[0] = 1.0  # writable: callers fill and reuse them
    for bad in [b'[[1,"x"]]', b'[[1,"2",3]]', b'[[1]]', b'{"a": 1}', b'[[1,""]]']:
        with pytest.raises(PrometheusError, match="^range answer: .*time, \"value\"") as e:
            _matrix_points([b'[[1,"2"]]', bad])
        assert "\n" not in str(e.value)


def test_durations():
    assert parse_duration("14d") == 14 * 86400 and parse_duration("1h30m") == 5400
    assert format_duration(120) == "2m" and format_duration(86400 * 3) == "3d"
    with pytest.raises(Exception, match="not a duration"):
        parse_duration("two weeks")


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
