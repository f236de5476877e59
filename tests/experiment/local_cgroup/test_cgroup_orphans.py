"""Owner folders and orphans: v2 on a fixture folder, v1 on this machine's real cgroups."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from throttlelab.experiment.local_cgroup.cgroup_orphans import find_orphans, owner_name, remove_orphans
from throttlelab.experiment.local_cgroup.cgroups import Cgroup


# -- cgroup v2, on the fixture ---------------------------------------------------
def test_v2_orphans_of_dead_owners_are_removed(v2_layout):
    mine = Cgroup(v2_layout, f"{owner_name()}/run").create()
    dead = Cgroup(v2_layout, "o999999999-1/run").create()
    orphans = find_orphans(v2_layout)
    assert orphans == [dead.dir.parent]
    assert remove_orphans(v2_layout) == [str(dead.dir.parent)]
    assert not dead.dir.parent.exists() and mine.dir.exists()


# -- cgroup v1, this machine -----------------------------------------------------
@pytest.mark.cgroup
def test_real_orphan_with_a_running_process_is_killed_and_removed(cgroup_layout):
    # a process that owns a cgroup and dies, leaving a busy-sleeping child inside
    script = (
        "import sys, subprocess\n"
        "from throttlelab.experiment.local_cgroup.cgroup_layout import detect_layout\n"
        "from throttlelab.experiment.local_cgroup.cgroup_orphans import owner_name\n"
        "from throttlelab.experiment.local_cgroup.cgroups import Cgroup\n"
        "from throttlelab.experiment.local_cgroup.cgroup_process import CgroupProcess\n"
        "lay = detect_layout()\n"
        "cg = Cgroup(lay, owner_name() + '/r').create()\n"
        "subprocess.Popen(['sleep', '60'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=lambda: [open(d / 'cgroup.procs', 'w').write('0') for d in cg.dirs])\n"
        "print(owner_name(), flush=True)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    owner = out.stdout.strip()
    d = cgroup_layout.parent / owner
    assert d.exists()
    sleeper = [int(p) for p in (d / "r" / "cgroup.procs").read_text().split()]
    assert sleeper
    assert str(d) in [str(p) for p in find_orphans(cgroup_layout)]
    remove_orphans(cgroup_layout)
    assert not d.exists()
    assert not (cgroup_layout.cpuacct_base / "throttlelab" / owner).exists()
    def gone(pid: int) -> bool:
        try:
            return open(f"/proc/{pid}/stat").read().split()[2] in ("Z", "X")
        except FileNotFoundError:
            return True

    deadline = time.monotonic() + 10  # SIGKILL is sent; a loaded machine may take a moment to reap
    while not all(gone(pid) for pid in sleeper) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert all(gone(pid) for pid in sleeper)
