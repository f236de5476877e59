"""A temporary local Prometheus (the Debian ``prometheus`` binary) serving a backfilled TSDB on loopback.

It scrapes nothing (an empty ``scrape_configs``), keeps data of any age
(retention 100 years) and listens on a free ``127.0.0.1`` port::

    with LocalPrometheus(tsdb_dir) as prom:
        api = PrometheusAPI(prom.url)
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from throttlelab import input_log
from throttlelab.errors import EnvironmentProblem


def prometheus_available() -> tuple[bool, str]:
    """Are ``prometheus`` and ``promtool`` on PATH?"""
    missing = [b for b in ("prometheus", "promtool") if not shutil.which(b)]
    if missing:
        return False, f"{' and '.join(missing)} not on PATH (Debian package 'prometheus'; make system-tools installs it)"
    return True, shutil.which("prometheus")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalPrometheus:
    """Start ``prometheus`` on ``tsdb_dir`` (a context manager; :meth:`stop` ends only the process it started)."""

    def __init__(self, tsdb_dir: str | Path, *, port: int | None = None, binary: str = "prometheus", timeout: float = 60):
        self.tsdb_dir = Path(tsdb_dir)
        self.port = port or free_port()
        self.binary = binary
        self.timeout = timeout
        self.proc: subprocess.Popen | None = None
        self._tmp: tempfile.TemporaryDirectory | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "LocalPrometheus":
        if not shutil.which(self.binary):
            raise EnvironmentProblem(prometheus_available()[1])
        self._tmp = tempfile.TemporaryDirectory(prefix="throttlelab-prom-")
        cfg = Path(self._tmp.name) / "prometheus.yml"
        cfg.write_text("global:\n  scrape_interval: 15s\nscrape_configs: []\n")
        self.log = Path(self._tmp.name) / "prometheus.log"
        cmd = [self.binary, f"--config.file={cfg}", f"--storage.tsdb.path={self.tsdb_dir}",
               f"--web.listen-address=127.0.0.1:{self.port}", "--storage.tsdb.retention.time=100y",
               "--log.level=warn",
               # the backfilled 24-h blocks are served as they are: no compaction competing with the queries
               "--storage.tsdb.max-block-duration=24h"]
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise EnvironmentProblem(f"prometheus exited ({self.proc.returncode}): {self.log.read_text()[-400:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise EnvironmentProblem(f"prometheus on {self.url} not ready after {self.timeout:g} s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> "LocalPrometheus":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def tsdb_time_range(tsdb_dir: str | Path) -> tuple[float, float] | None:
    """(first, last) sample time (unix s) in a TSDB folder, from its blocks' ``meta.json``."""
    import json

    metas = [json.loads(m.read_text()) for m in Path(tsdb_dir).glob("*/meta.json")]
    if not metas:
        return None
    return min(m["minTime"] for m in metas) / 1000, max(m["maxTime"] for m in metas) / 1000


def run_promtool(openmetrics_file: str | Path, tsdb_dir: str | Path, *, promtool: str = "promtool") -> None:
    """``promtool tsdb create-blocks-from openmetrics`` (24-h blocks); raises with promtool's own message."""
    cmd = [promtool, "tsdb", "create-blocks-from", "openmetrics", "--max-block-duration=24h", "-q",
           str(openmetrics_file), str(tsdb_dir)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError:
        raise EnvironmentProblem("promtool not found (Debian package 'prometheus'; make system-tools installs it)") from None
    if proc.returncode != 0:
        raise EnvironmentProblem(f"{openmetrics_file}: promtool could not backfill it: {proc.stderr.strip()[-300:]}")


def fetch_from_export(path: str | Path, *, use_prometheus: bool = True, window_s: float | None = None,
                      end: float | None = None, namespace: str | None = None, selector: str | None = None,
                      step_s: float | None = None, gauges: dict[str, str] | None = None):
    """Per-container CPU from a saved OpenMetrics export (``.gz`` too).

    With ``use_prometheus`` and the Debian binaries installed, the export is backfilled by promtool into a
    temporary local Prometheus and read through its HTTP API (the same path as a live server); otherwise it is
    read directly.  ``window_s`` and ``end`` default to the whole export.  Returns ``(Fetch, how)``.
    """
    import gzip

    from throttlelab.errors import InputError
    from throttlelab.ingest.prometheus.container_cpu import NoContainers, fetch_containers
    from throttlelab.ingest.prometheus.range_series import COUNTERS
    from throttlelab.ingest.prometheus.openmetrics_containers import read_openmetrics_containers
    from throttlelab.ingest.prometheus.prometheus_api import PrometheusAPI

    path = Path(path)
    if not path.is_file():
        raise InputError(path, None, "no such export file")
    ok, why = prometheus_available()
    if not (use_prometheus and ok):
        f = read_openmetrics_containers(path, window_s=window_s, end=end, namespace=namespace, selector=selector,
                                        step_s=step_s, gauges=gauges)
        return f, "read directly" + (f" ({why})" if use_prometheus else "")
    with tempfile.TemporaryDirectory(prefix="throttlelab-export-") as tmp:
        plain, tsdb = Path(tmp) / "export.om", Path(tmp) / "tsdb"
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rb") as src, open(plain, "wb") as dst:
            shutil.copyfileobj(src, dst)
        try:
            run_promtool(plain, tsdb)
        except EnvironmentProblem as exc:  # name the user's file, not the temporary copy
            raise EnvironmentProblem(str(exc).replace(str(plain), str(path))) from None
        plain.unlink()
        first, last = tsdb_time_range(tsdb) or (0.0, 0.0)
        end = end or last
        window_s = window_s or (end - first)
        with LocalPrometheus(tsdb) as prom:
            try:
                f = fetch_containers(PrometheusAPI(prom.url), window_s=window_s, end=end, namespace=namespace,
                                     selector=selector, step_s=step_s, gauges=gauges)
            except NoContainers as exc:  # say it of the file, not of the temporary server
                import re

                detail = re.sub(r" over the last [0-9a-z]+", "", str(exc).split(" series in ", 1)[-1])
                raise InputError(path, None, f"no {COUNTERS['usage']} samples", detail) from None
        return f, "backfilled by promtool into a temporary local Prometheus"


def read_source(*, prometheus_url: str | None = None, openmetrics_path: str | None = None, use_prometheus: bool = True,
                window_s: float | None = None, end: float | None = None, namespace: str | None = None,
                selector: str | None = None, step_s: float | None = None, bearer_token_file: str | None = None,
                ca_file: str | None = None, insecure_skip_tls_verify: bool = False, timeout: float = 60.0,
                gauges: dict[str, str] | None = None):
    """Per-container CPU from a live Prometheus (``window_s`` default 14 days) or a saved export, pooled by
    workload (``Fetch.workloads``); ``gauges`` as for
    :func:`~throttlelab.ingest.prometheus.container_cpu.fetch_containers`.

    Returns ``(Fetch, source, how)``: the data, the URL or path read, and how it was read.
    """
    from throttlelab.ingest.prometheus.container_cpu import fetch_containers
    from throttlelab.ingest.prometheus.prometheus_api import PrometheusAPI
    from throttlelab.ingest.prometheus.workload_cpu import with_workloads

    if prometheus_url or openmetrics_path:
        input_log.record(prometheus_url or openmetrics_path)
    if prometheus_url:
        api = PrometheusAPI(prometheus_url, bearer_token_file=bearer_token_file, ca_file=ca_file,
                            insecure_skip_tls_verify=insecure_skip_tls_verify, timeout=timeout)
        f = fetch_containers(api, window_s=window_s or 14 * 86400, end=end, namespace=namespace, selector=selector,
                             step_s=step_s, gauges=gauges)
        return with_workloads(f), prometheus_url, "Prometheus HTTP API"
    f, how = fetch_from_export(openmetrics_path, use_prometheus=use_prometheus, window_s=window_s, end=end,
                               namespace=namespace, selector=selector, step_s=step_s, gauges=gauges)
    return with_workloads(f), str(openmetrics_path), how
