"""Writing and removing cgroupfs files and folders, and reading their process lists.

The few operations every cgroup module needs, with cgroupfs semantics: files
are read by the one reader of cgroup files
(:func:`throttlelab.ingest.cgroup.read_cgroup_file`: a missing file reads as
empty here), writes never create files on a real cgroupfs (only in fixture
folders laid out like one), and removing a cgroup folder first kills what runs
in it, then its children, retrying while the kernel still reports it busy.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import time
from pathlib import Path

from throttlelab.ingest.cgroup import read_cgroup_file


def write_file(path: Path, text: str) -> None:
    """Write ``text`` to a cgroup file (one ``write``, as the kernel expects)."""
    # cgroupfs files always exist; creating is only for fixture folders.
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC | (0 if path.exists() else os.O_CREAT), 0o644)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def read_pids(path: Path) -> list[int]:
    """Process ids listed in a ``cgroup.procs`` (or ``tasks``) file; raises ``OSError`` as reading does."""
    return [int(x) for x in read_cgroup_file(path, "").split()]


def remove_tree(d: Path, simulated: bool) -> None:
    """Remove a cgroup folder and its children, SIGKILLing what runs inside first."""
    for child in sorted((p for p in d.iterdir() if p.is_dir()), key=lambda p: -len(p.parts)):
        remove_tree(child, simulated)
    if simulated:
        shutil.rmtree(d, ignore_errors=True)
        return
    pids = []
    with contextlib.suppress(OSError):
        pids = read_pids(d / "cgroup.procs")
    deadline = time.monotonic() + 5
    while True:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        try:
            os.rmdir(d)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                raise
        time.sleep(0.01)
        with contextlib.suppress(OSError):
            pids = read_pids(d / "cgroup.procs")
