"""Start a command inside a cgroup (it joins before exec) and wait for it with rusage.

The child writes its own pid into ``cgroup.procs`` of every hierarchy of the
cgroup in ``preexec_fn`` (between fork and exec), through descriptors the
parent opened, so not one instruction of the workload runs outside the limit.
It also asks the kernel to SIGKILL it if the parent dies (``PR_SET_PDEATHSIG``),
so a killed sweep does not leave busy workloads behind (the next sweep removes
their cgroups).  A waiter thread blocks in ``os.wait4`` so the exit is seen at
once (sub-millisecond wall time) with the child's user and system time.
"""

from __future__ import annotations

import ctypes
import datetime as dt
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from throttlelab.errors import EnvironmentProblem

if TYPE_CHECKING:
    from throttlelab.experiment.local_cgroup.cgroups import Cgroup

_PR_SET_PDEATHSIG = 1
try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # pragma: no cover - not Linux
    _prctl = None


@dataclass(frozen=True)
class ProcessResult:
    """How a process ended.

    Attributes
    ----------
    started_at
        UTC time just before the fork.
    wall_seconds
        From just before the fork to the reaping of the child.
    exit_code
        Exit status, or ``-signal`` when killed by a signal.
    user_seconds, system_seconds
        CPU time of the child and its reaped descendants (``os.wait4`` rusage).
    """

    started_at: dt.datetime
    wall_seconds: float
    exit_code: int
    user_seconds: float
    system_seconds: float


class CgroupProcess:
    """A command running inside a cgroup.

    Parameters
    ----------
    argv
        The command.
    cgroup
        The cgroup to join before exec (``None``: run where we are).
    env
        Extra environment variables.
    output
        File to receive stdout and stderr (``None``: discarded).
    """

    def __init__(self, argv: list[str], *, cgroup: Cgroup | None = None, env: dict[str, str] | None = None,
                 output: str | Path | None = None):
        self.argv = list(argv)
        self.cgroup = cgroup
        self.env = {**os.environ, **(env or {})}
        self.output = Path(output) if output is not None else None
        self.done = threading.Event()
        self.result: ProcessResult | None = None
        self.proc: subprocess.Popen | None = None
        self._error: BaseException | None = None

    def start(self) -> CgroupProcess:
        """Fork, join the cgroup, exec; start the waiter thread.

        Raises
        ------
        EnvironmentProblem
            If the command cannot be started or cannot join the cgroup.
        """
        fds = self.cgroup.open_procs() if self.cgroup is not None else []
        parent = os.getpid()
        die_with_parent = threading.current_thread() is threading.main_thread() and _prctl is not None

        def preexec() -> None:  # runs in the child between fork and exec: keep it tiny
            me = str(os.getpid()).encode()
            for fd in fds:
                os.write(fd, me)
            if die_with_parent:
                _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
                if os.getppid() != parent:
                    os._exit(137)

        out = open(self.output, "wb") if self.output is not None else subprocess.DEVNULL  # noqa: SIM115
        try:
            self.started_at = dt.datetime.now(dt.timezone.utc)
            self._t0 = time.perf_counter()
            self.proc = subprocess.Popen(self.argv, env=self.env, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=subprocess.STDOUT, preexec_fn=preexec, start_new_session=True)
        except subprocess.SubprocessError as exc:
            raise EnvironmentProblem(f"could not move the workload into cgroup {self.cgroup}: {exc}") from None
        except OSError as exc:
            raise EnvironmentProblem(f"cannot start {self.argv[0]}: {exc.strerror or exc}") from None
        finally:
            for fd in fds:
                os.close(fd)
            if out is not subprocess.DEVNULL:
                out.close()
        threading.Thread(target=self._wait, name=f"wait4-{self.proc.pid}", daemon=True).start()
        return self

    def _wait(self) -> None:
        try:
            _, status, ru = os.wait4(self.proc.pid, 0)
            wall = time.perf_counter() - self._t0
            code = os.waitstatus_to_exitcode(status)
            self.proc.returncode = code
            self.result = ProcessResult(self.started_at, wall, code, ru.ru_utime, ru.ru_stime)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            self._error = exc
        finally:
            self.done.set()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the process exits (True) or ``timeout`` passes (False)."""
        finished = self.done.wait(timeout)
        if finished and self._error is not None:
            raise self._error
        return finished

    def kill(self) -> None:
        """SIGKILL the process, its session, and everything in its cgroup."""
        if self.proc is None or self.done.is_set():
            return
        for fn in (lambda: os.killpg(self.proc.pid, signal.SIGKILL), lambda: os.kill(self.proc.pid, signal.SIGKILL)):
            try:
                fn()
            except (ProcessLookupError, PermissionError):
                pass
        if self.cgroup is not None:
            self.cgroup.kill(signal.SIGKILL)
