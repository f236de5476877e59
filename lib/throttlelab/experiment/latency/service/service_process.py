"""Start and stop the target service as a separate process.

:class:`ServiceProcess` runs ``python -m throttlelab.experiment.latency.service`` on
127.0.0.1 with a free port, optionally placed in a cgroup before it runs a
single instruction of the service (``preexec_fn``, e.g. one that writes the
child's pid into ``cgroup.procs``) or right after it started (``on_start(pid)``).
It waits for the ready line, checks ``/health``, and stops with SIGTERM (graceful:
requests in flight finish), then SIGKILL after a grace period.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Callable

from throttlelab.errors import EnvironmentProblem
from throttlelab.experiment.latency.service.pipeline import PipelineConfig

#: Environment of the service: numpy's BLAS must not start helper threads.
SERVICE_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}


@dataclass
class ServiceProcess:
    """The target service in its own process (a context manager).

    Parameters
    ----------
    config
        Pipeline configuration (worker pool, semaphore, work sizes).
    preexec_fn
        Called in the child between fork and exec (place it in a cgroup here).
    on_start
        Called with the child's pid right after it started.
    ready_timeout
        Seconds to wait for the service to accept requests.
    """

    config: PipelineConfig = field(default_factory=PipelineConfig)
    preexec_fn: Callable[[], None] | None = None
    on_start: Callable[[int], None] | None = None
    ready_timeout: float = 15.0
    port: int | None = field(default=None, init=False)
    _proc: subprocess.Popen | None = field(default=None, init=False, repr=False)
    _stderr: object = field(default=None, init=False, repr=False)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("service not started")
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        c = self.config
        cmd = [sys.executable, "-m", "throttlelab.experiment.latency.service", "--max-workers", str(c.max_workers),
               "--heavy-elements", str(c.heavy_elements), "--light-elements", str(c.light_elements),
               "--score-elements", str(c.score_elements)]
        if c.semaphore:
            cmd += ["--semaphore", str(c.semaphore)]
        return cmd

    def start(self) -> ServiceProcess:
        """Start the service and wait until ``/health`` answers."""
        self._stderr = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(self.command(), stdout=subprocess.PIPE, stderr=self._stderr,
                                      env={**os.environ, **SERVICE_ENV}, preexec_fn=self.preexec_fn)
        if self.on_start is not None:
            self.on_start(self._proc.pid)
        deadline = time.monotonic() + self.ready_timeout
        line = b""
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or self._proc.poll() is not None:
                self._fail("did not become ready" if left <= 0 else f"exited with {self._proc.returncode}")
            ready, _, _ = select.select([self._proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self._proc.stdout.fileno(), 1)
                if not chunk:
                    self._proc.wait(timeout=5)
                    self._fail(f"exited with {self._proc.returncode}")
                line += chunk
        event = json.loads(line)
        if event.get("event") != "ready":
            self._fail(f"said {event}")
        self.port = int(event["port"])
        self.health()
        return self

    def health(self, timeout: float = 5.0) -> dict:
        """The ``/health`` answer (raises if the service does not answer)."""
        with urllib.request.urlopen(self.url + "/health", timeout=timeout) as resp:
            return json.loads(resp.read())

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def stop(self, grace: float = 10.0) -> int | None:
        """SIGTERM, wait up to ``grace`` seconds, then SIGKILL; return the exit code."""
        if self._proc is None:
            return None
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
            try:
                self._proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        if self._proc.stdout:
            self._proc.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        return self._proc.returncode

    def kill(self) -> None:
        """Kill the service abruptly (to test how a dying target is recorded)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()

    def _fail(self, what: str) -> None:
        err = ""
        if self._stderr is not None:
            self._stderr.seek(0)
            err = self._stderr.read().decode(errors="replace")[-2000:]
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        raise EnvironmentProblem(f"target service {what}: {' '.join(self.command())}\n{err}".rstrip())

    def __enter__(self) -> ServiceProcess:
        return self.start() if self._proc is None else self

    def __exit__(self, *exc) -> None:
        self.stop()
