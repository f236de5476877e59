"""Realistic monitor logs for the ingest benchmark, written as ``monitor_cpu.sh`` writes them.

What the ffmpeg write-up's script (``/work/shared/seeds/000_*``) writes, with the
variety of a real day:

* timestamps ``date '+%Y-%m-%d %H:%M:%S.%3N'``: naive local time, the loop's own
  jitter added to every interval (kubectl calls take a while);
* ``kubectl top pod POD --containers``: a tabwriter table whose column widths
  follow the values; CPU (``m``) and memory (``Mi``) change every sample; with
  several containers, the last one can be left out of a block (a container the
  metrics server has no figures for yet, as after its restart);
* ``cat /sys/fs/cgroup/cpu.stat`` (cgroup v2, 8 keys): usage, user, system,
  periods, throttled periods and time growing by a different amount each sample;
  at a container restart every counter starts again near 0;
* ``cat /sys/fs/cgroup/cpu.max``: the limit, changed now and then (``max`` = none);
* missing sections: ``kubectl top`` without metrics (an empty section, the error
  goes to stderr), ``kubectl exec`` failing (empty cpu.stat and cpu.max);
* gaps: the loop stalls now and then (slow API server) and misses 1 to
  ``gap_max`` intervals; no block is written for them.

A knob at its default draws no random numbers, so the logs of earlier settings
stay byte for byte the same.

:class:`Settings` holds every knob; :meth:`Settings.describe` prints them beside
the benchmark's figures.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class Settings:
    """Generator settings (printed with the results)."""

    blocks: int = 864_000
    interval_s: float = 0.1
    containers: int = 1
    jitter_ms: int = 15
    restart_every: int = 50_000
    p_top_missing: float = 0.02
    p_exec_failed: float = 0.005
    limit_change_every: int = 100_000
    p_container_missing: float = 0.0
    p_gap: float = 0.0
    gap_max: int = 20
    seed: int = 1

    def describe(self) -> str:
        listed = f"{self.containers} container(s)"
        if self.containers > 1 and self.p_container_missing:
            listed = (f"{self.containers - 1}-{self.containers} containers (the last left out in "
                      f"{self.p_container_missing:.0%} of blocks)")
        gaps = f", gaps of 1-{self.gap_max} missed intervals before {self.p_gap:.1%} of blocks" if self.p_gap else ""
        return (f"{self.blocks:,d} blocks at {self.interval_s:g} s (+0-{self.jitter_ms} ms loop jitter{gaps}), "
                f"{listed} in kubectl top, values varying every sample, a restart "
                f"(counters reset) every ~{self.restart_every:,d} blocks, kubectl top missing in "
                f"{self.p_top_missing:.1%} and exec failed in {self.p_exec_failed:.1%} of blocks, limit changed every "
                f"~{self.limit_change_every:,d} blocks, naive local timestamps with %3N, cgroup v2, seed {self.seed}")


def _table(rows: list[tuple[str, ...]]) -> str:
    """kubectl's tabwriter: each column padded to its widest cell + 3 spaces."""
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "".join("".join(r[i].ljust(widths[i] + 3) for i in range(3)) + r[3] + "\n" for r in rows)


def generate(path: Path, s: Settings, pod: str = "ffmpeg-7d9c5b6f4-x2k8p") -> int:
    """Write the log; return its size in bytes."""
    rnd = random.Random(s.seed)
    names = ["ffmpeg", "istio-proxy", "log-shipper", "metrics"][: s.containers] + [f"c{k}" for k in range(4, s.containers)]
    t = dt.datetime(2026, 2, 6, 9, 0, 0)
    step = dt.timedelta(seconds=s.interval_s)
    quota = 400_000
    usage = user = nr_periods = nr_throttled = throttled = 0
    out = [f"=== CPU Monitoring Started ===\nPod: {pod}\nNamespace: media\nInterval: {s.interval_s:g}s\n"
           f"Log file: ./cpu_monitor_20260206_090000.log\n===============================\n"]
    size = 0
    with open(path, "w") as f:
        for i in range(s.blocks):
            if s.p_gap and rnd.random() < s.p_gap:
                t += step * rnd.randrange(1, s.gap_max + 1)
            t += step + dt.timedelta(microseconds=rnd.randrange(s.jitter_ms * 1000 + 1))
            out.append(f"--- {t:%Y-%m-%d %H:%M:%S}.{t.microsecond // 1000:03d} ---\n[kubectl top]\n")
            if rnd.random() >= s.p_top_missing:
                rows = [("POD", "NAME", "CPU(cores)", "MEMORY(bytes)")]
                listed = names[:-1] if s.p_container_missing and rnd.random() < s.p_container_missing else names
                rows += [(pod, c, f"{rnd.randrange(1, 4200)}m", f"{rnd.randrange(20, 2000)}Mi") for c in listed]
                out.append(_table(rows))
            if rnd.randrange(s.restart_every) == 0:
                usage = user = nr_periods = nr_throttled = throttled = 0
            if rnd.randrange(s.limit_change_every) == 0:
                quota = rnd.choice([100_000, 200_000, 400_000, 800_000, -1])
            periods = rnd.randrange(0, 3)
            nr_periods += periods
            thr = rnd.randrange(0, periods + 1)
            nr_throttled += thr
            throttled += thr * rnd.randrange(1, 90_000)
            du = rnd.randrange(1_000, 400_000)
            usage += du
            user += du * 9 // 10
            out.append("[cgroup cpu.stat]\n")
            if rnd.random() >= s.p_exec_failed:
                out.append(f"usage_usec {usage}\nuser_usec {user}\nsystem_usec {usage - user}\nnr_periods {nr_periods}\n"
                           f"nr_throttled {nr_throttled}\nthrottled_usec {throttled}\nnr_bursts 0\nburst_usec 0\n"
                           f"[cgroup cpu.max]\n{'max' if quota < 0 else quota} 100000\n\n")
            else:
                out.append("[cgroup cpu.max]\n\n")
            if len(out) > 20_000:
                chunk = "".join(out)
                size += len(chunk)
                f.write(chunk)
                out.clear()
        chunk = "".join(out)
        f.write(chunk)
    return path.stat().st_size
