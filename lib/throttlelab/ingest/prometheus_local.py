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
               "--log.level=warn"]
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
