"""The transport of the Prometheus client: one connection pool over urllib3, authentication, TLS, and one request.

Every failure a user can meet (unreachable server, TLS, 4xx/5xx, a PromQL error,
an answer that is not the API's JSON) raises
:class:`~.prometheus_answers.PrometheusError`, printed as one line.  With
``$THROTTLELAB_QUERY_STATS`` set, each request's statistics are appended to that file.
"""

from __future__ import annotations

import json
import os
import ssl
import threading
import time as _time
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from throttlelab.ingest.prometheus.prometheus_answers import DECODE_SERIES, PrometheusError, decode_answer

USER_ENV = "PROMETHEUS_USERNAME"
PASSWORD_ENV = "PROMETHEUS_PASSWORD"
#: A file to append each query's statistics to (one JSON line: path, query, range, seconds, ``peakSamples``,
#: ``totalQueryableSamples``, series); the queries then ask the server for ``stats=all``.
STATS_ENV = "THROTTLELAB_QUERY_STATS"


@dataclass
class PrometheusHTTP:
    """Connection to one Prometheus server: authentication, TLS, and one POST per request.

    Parameters
    ----------
    url
        Base URL (``http://host:9090``, or with a path prefix ``https://host/prometheus``).
    bearer_token_file
        File holding a bearer token (sent as ``Authorization: Bearer``); read once.
    ca_file
        CA bundle that signs the server's certificate.
    insecure_skip_tls_verify
        Do not verify the server's certificate (off by default).
    timeout
        Seconds per request (connect and read).
    basic_auth
        ``(user, password)``; by default from ``$PROMETHEUS_USERNAME`` and ``$PROMETHEUS_PASSWORD``.
    """

    url: str
    bearer_token_file: str | None = None
    ca_file: str | None = None
    insecure_skip_tls_verify: bool = False
    timeout: float = 30.0
    basic_auth: tuple[str, str] | None = None
    queries: int = field(default=0, init=False)  # requests sent (for benchmarks)

    def __post_init__(self) -> None:
        import urllib3

        if not self.url.startswith(("http://", "https://")):
            raise PrometheusError(f"{self.url}: not an http(s) URL (expected e.g. http://127.0.0.1:9090)")
        self.url = self.url.rstrip("/")
        self._lock = threading.Lock()
        headers = {"Accept": "application/json", "User-Agent": "throttlelab-recommend"}
        if self.bearer_token_file:
            try:
                token = Path(self.bearer_token_file).read_text().strip()
            except OSError as exc:
                raise PrometheusError(f"{self.bearer_token_file}: cannot read the bearer token file ({exc.strerror})") from None
            headers["Authorization"] = f"Bearer {token}"
        else:
            auth = self.basic_auth
            if auth is None and os.environ.get(USER_ENV):
                auth = (os.environ[USER_ENV], os.environ.get(PASSWORD_ENV, ""))
            if auth:
                headers.update(urllib3.make_headers(basic_auth=f"{auth[0]}:{auth[1]}"))
        if self.ca_file and not Path(self.ca_file).is_file():
            raise PrometheusError(f"{self.ca_file}: CA file not found")
        kw: dict = {}
        if self.url.startswith("https://"):
            if self.insecure_skip_tls_verify:
                kw.update(cert_reqs=ssl.CERT_NONE, assert_hostname=False)
                urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
            else:
                kw.update(cert_reqs=ssl.CERT_REQUIRED, ca_certs=self.ca_file)
        self._pool = urllib3.PoolManager(
            num_pools=2, maxsize=4, headers=headers, timeout=urllib3.Timeout(connect=min(self.timeout, 10), read=self.timeout),
            retries=urllib3.Retry(total=1, connect=1, read=0, redirect=2, status=0), **kw,
        )

    def _get(self, path: str, params: dict, *, labels_only: bool = False):
        """POST one API request; its ``data`` (a :class:`~.prometheus_answers.Data`, or with ``labels_only`` the series API's list of
        label sets).  An error answer raises one :class:`PrometheusError` line."""
        import urllib3

        target = f"{self.url}{path}"
        with self._lock:
            self.queries += 1
        stats_file = os.environ.get(STATS_ENV)
        if stats_file:
            params = {**params, "stats": "all"} if not labels_only else params
            t0 = _time.perf_counter()
        try:
            resp = self._pool.request("POST", target, fields=params, encode_multipart=False)
        except urllib3.exceptions.MaxRetryError as exc:
            raise PrometheusError(f"{self.url}: cannot reach Prometheus ({_reason(exc.reason)})") from None
        except urllib3.exceptions.HTTPError as exc:
            raise PrometheusError(f"{self.url}: cannot reach Prometheus ({_reason(exc)})") from None
        if labels_only and resp.status < 400:
            try:
                found = DECODE_SERIES.decode(resp.data)
            except (msgspec.DecodeError, msgspec.ValidationError):
                found = None
            if found is not None and found.status == "success" and found.data is not None:
                if stats_file:
                    _record_stats(stats_file, path, params, found.data, None, _time.perf_counter() - t0, self._lock)
                return found.data
        doc = decode_answer(resp.data)
        if labels_only and doc is not None and doc.status == "success":  # a list was expected
            doc.status, doc.error = "error", None
        if resp.status >= 400 or doc is None or doc.status != "success" or doc.data is None:
            if doc is not None and doc.error:
                detail = f"{doc.errorType or 'error'}: {doc.error}"
            else:
                detail = resp.data[:120].decode("utf-8", "replace").strip().replace("\n", " ") or "empty body"
            what = f"HTTP {resp.status}" if resp.status >= 400 else "not a Prometheus API answer"
            hint = " (check --bearer-token-file or $PROMETHEUS_USERNAME/$PROMETHEUS_PASSWORD)" if resp.status in (401, 403) else ""
            raise PrometheusError(f"{target}: {what}{hint}: {detail}")
        if stats_file:
            _record_stats(stats_file, path, params, doc.data.result, doc.data.stats, _time.perf_counter() - t0,
                          self._lock)
        return doc.data

    def close(self) -> None:
        self._pool.clear()


def _record_stats(stats_file: str, path: str, params: dict, result: list, stats: dict | None, seconds: float,
                  lock) -> None:
    """Append one query's statistics to ``stats_file`` (see :data:`STATS_ENV`)."""
    samples = (stats or {}).get("samples") or {}
    row = {"path": path, **{k: v for k, v in params.items() if k != "stats"}, "seconds": round(seconds, 3),
           "series": len(result), "peakSamples": samples.get("peakSamples"),
           "totalQueryableSamples": samples.get("totalQueryableSamples")}
    with lock, open(stats_file, "a") as fh:
        fh.write(json.dumps(row) + "\n")


def _reason(exc: object) -> str:
    text = str(exc)
    for marker in ("Connection refused", "timed out", "Name or service not known", "CERTIFICATE_VERIFY_FAILED",
                   "No route to host", "Temporary failure in name resolution", "WRONG_VERSION_NUMBER"):
        if marker in text:
            return marker.lower().replace("_", " ")
    return text.split(": ", 1)[-1][:160]
