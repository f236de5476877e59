"""Starting processes that die with their parent (``PR_SET_PDEATHSIG``), and waiting for things."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
_libc = ctypes.CDLL(None, use_errno=True)


def prctl(option: int, value: int) -> None:
    if _libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}, {value}) failed")


def die_with_parent(sig: int = signal.SIGKILL) -> Callable[[], None]:
    """A ``preexec_fn``: the child gets ``sig`` when the thread that started it ends.

    If the parent is already gone when the child runs it, the child ends at once.
    """
    parent = os.getpid()

    def setup() -> None:
        prctl(PR_SET_PDEATHSIG, int(sig))
        if os.getppid() != parent:
            os.kill(os.getpid(), sig)

    return setup


def become_subreaper() -> None:
    """Orphaned descendants (containerd shims double-fork) become our children, so we see and stop them."""
    prctl(PR_SET_CHILD_SUBREAPER, 1)


def spawn(argv: list[str], log: Path, *, env: dict[str, str] | None = None, cwd: Path | None = None,
          sig: int = signal.SIGKILL) -> subprocess.Popen:
    """Start ``argv`` with stdout+stderr appended to ``log``; it gets ``sig`` when we die."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env, cwd=cwd, preexec_fn=die_with_parent(sig))


def wait_until(check: Callable[[], bool], timeout_s: float, what: str, *,
               alive: Callable[[], str | None] | None = None, interval_s: float = 0.1) -> None:
    """Poll ``check`` until true; raise ``RuntimeError`` naming ``what`` on timeout.

    ``alive`` returns a message when something it watches has died (then fail at once).
    """
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if check():
                return
        except Exception:  # noqa: BLE001 - not ready yet
            pass
        if alive is not None:
            dead = alive()
            if dead:
                raise RuntimeError(f"{what}: {dead}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not ready after {timeout_s:g} s")
        time.sleep(interval_s)


def stop(proc: subprocess.Popen, timeout_s: float = 10.0) -> None:
    """SIGTERM, then SIGKILL after ``timeout_s``."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie counts as dead
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return False


def cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [a.decode(errors="replace") for a in raw.split(b"\0") if a]


def all_pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def kill_pids(pids: list[int], grace_s: float = 3.0) -> None:
    """SIGTERM, wait up to ``grace_s``, then SIGKILL the survivors."""
    me = os.getpid()
    pids = [p for p in pids if p != me]
    for p in pids:
        try:
            os.kill(p, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(pid_alive(p) for p in pids):
        _reap()
        time.sleep(0.05)
    for p in pids:
        if pid_alive(p):
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
    _reap()


def _reap() -> None:
    """Collect exited children (we may be their subreaper)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
