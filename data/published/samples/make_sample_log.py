#!/usr/bin/env python3
"""Record the bundled sample monitor log from a real cgroup v1 run on this machine.

Two busy-looping processes run in a fresh cgroup (``cpu`` and ``cpuacct``
hierarchies, cgroup v1) for 3 x 15 s while the CFS quota steps from 0.25 to 0.5
to 1.0 core (period 100 ms), like the write-up's limit sweep.  Every 0.5 s the
cgroup files are sampled and written with
:mod:`throttlelab.ingest.monitor.monitor_format` (the monitor-script format):
``cpu.stat``, the quota/period pair, ``cpuacct.usage`` and a ``kubectl top``-like
row (CPU = cpuacct delta over the last sample; memory = summed VmRSS).

    sudo .venv/bin/python data/published/samples/make_sample_log.py data/published/samples/local_cgroup_v1_quota_steps.log
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from throttlelab.ingest.monitor import format_block, format_cpu_max, format_header

CPU = Path("/sys/fs/cgroup/cpu")
ACCT = Path("/sys/fs/cgroup/cpuacct")
NAME = f"throttlelab-sample-{os.getpid()}"
STEPS = [(25_000, 15.0), (50_000, 15.0), (100_000, 15.0)]  # (quota_us, seconds)
PERIOD = 100_000
INTERVAL = 0.5


def rss_bytes(pids) -> int:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def main(out: str) -> None:
    cg, ac = CPU / NAME, ACCT / NAME
    cg.mkdir()
    ac.mkdir()
    procs = []
    try:
        (cg / "cpu.cfs_period_us").write_text(str(PERIOD))
        (cg / "cpu.cfs_quota_us").write_text(str(STEPS[0][0]))
        for _ in range(2):
            p = subprocess.Popen(["sh", "-c", "while :; do :; done"])
            (cg / "cgroup.procs").write_text(str(p.pid))
            (ac / "cgroup.procs").write_text(str(p.pid))
            procs.append(p)
        with open(out, "w") as f:
            f.write(format_header("local-burner", "local", INTERVAL, out))
            last_usage, last_t = None, None
            for quota, seconds in STEPS:
                (cg / "cpu.cfs_quota_us").write_text(str(quota))
                end = time.monotonic() + seconds
                while time.monotonic() < end:
                    now = dt.datetime.now(dt.timezone.utc)
                    t = time.monotonic()
                    stat = {k: int(v) for k, v in (l.split() for l in (cg / "cpu.stat").read_text().splitlines())}
                    usage = int((ac / "cpuacct.usage").read_text())
                    q = int((cg / "cpu.cfs_quota_us").read_text())
                    per = int((cg / "cpu.cfs_period_us").read_text())
                    top = None
                    if last_usage is not None:
                        milli = round((usage - last_usage) / 1e6 / (t - last_t))
                        mem = rss_bytes(p.pid for p in procs) // 2**20
                        top = [("local-burner", "burner", f"{milli}m", f"{mem}Mi")]
                    last_usage, last_t = usage, t
                    f.write(format_block(now, top=top, cpu_stat=stat, cpu_max=format_cpu_max(q, per, v1=True),
                                         cpuacct_usage_ns=usage))
                    time.sleep(max(0.0, INTERVAL - (time.monotonic() - t)))
    finally:
        for p in procs:
            p.send_signal(signal.SIGKILL)
            p.wait()
        for d in (cg, ac):
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "local_cgroup_v1_quota_steps.log")
