"""Owner folders of cgroups: named after the process that made them, removed when it is gone.

Everything lives under ``<base>/throttlelab/o<pid>-<starttime>/``, one owner
folder per process (:func:`owner_name`), so concurrent sweeps never touch
each other's groups; the owner folder holds one cgroup per run and the noisy
neighbour.  The process start time makes the name unique even when a pid is
reused.  An owner folder whose process is gone is an *orphan* (a sweep that
was SIGKILLed): :func:`remove_orphans` kills what still runs in it and
removes it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from throttlelab.experiment.local_cgroup.cgroup_files import remove_tree
from throttlelab.experiment.local_cgroup.cgroup_layout import CgroupLayout

_OWNER = re.compile(r"^o(?P<pid>\d+)-(?P<start>\d+)$")


def owner_name(pid: int | None = None) -> str:
    """``o<pid>-<starttime>`` of a process (default: this one)."""
    pid = os.getpid() if pid is None else pid
    return f"o{pid}-{_start_time(pid)}"


def find_orphans(layout: CgroupLayout) -> list[Path]:
    """Owner folders under ``throttlelab/`` whose process is gone (in any hierarchy)."""
    out = []
    for parent in layout.parents:
        if not parent.is_dir():
            continue
        for d in sorted(parent.iterdir()):
            m = _OWNER.match(d.name)
            if d.is_dir() and m and not _owner_alive(int(m["pid"]), int(m["start"])):
                out.append(d)
    return out


def remove_orphans(layout: CgroupLayout) -> list[str]:
    """Kill the processes of orphaned owner folders and remove them; return their names."""
    removed = []
    for d in find_orphans(layout):
        remove_tree(d, layout.simulated)
        removed.append(str(d))
    return removed


def _start_time(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[19])


def _owner_alive(pid: int, start: int) -> bool:
    return _start_time(pid) == start and start != 0
