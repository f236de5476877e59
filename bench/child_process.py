"""Run one benchmark command as a child process: wall time, CPU time and peak memory (from ``wait4``)."""

from __future__ import annotations

import os
import subprocess
import time


def measure(argv: list[str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of ``argv`` run to completion; ``RuntimeError`` with its stderr if it fails."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code:
        raise RuntimeError(f"{' '.join(argv[:6])} failed ({code}): {err[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024
