"""Tests of throttlelab.experiment.local_cgroup.cgroup_files: cgroupfs writes, process lists and removal."""

from __future__ import annotations

import subprocess
import time

import pytest

from throttlelab.experiment.local_cgroup.cgroup_files import read_pids, remove_tree, write_file
from throttlelab.experiment.local_cgroup.cgroup_orphans import owner_name
from throttlelab.experiment.local_cgroup.cgroups import Cgroup


def test_write_truncates_and_read_pids(tmp_path):
    f = tmp_path / "cgroup.procs"
    write_file(f, "12\n345\n")
    write_file(f, "7\n8")
    assert read_pids(f) == [7, 8]


def test_simulated_tree_is_removed(tmp_path):
    (tmp_path / "o1" / "run" / "child").mkdir(parents=True)
    (tmp_path / "o1" / "run" / "cpu.max").write_text("max 100000")
    remove_tree(tmp_path / "o1", simulated=True)
    assert not (tmp_path / "o1").exists()


@pytest.mark.cgroup
def test_real_cgroup_with_a_process_is_killed_and_removed(cgroup_layout):
    cg = Cgroup(cgroup_layout, f"{owner_name()}/t-files/inner").create()
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        write_file(cg.dir / "cgroup.procs", str(sleeper.pid))
        assert read_pids(cg.dir / "cgroup.procs") == [sleeper.pid]
        remove_tree(cg.dir.parent, cgroup_layout.simulated)
        assert not cg.dir.parent.exists()
        deadline = time.monotonic() + 5
        while sleeper.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert sleeper.returncode == -9
    finally:
        if sleeper.poll() is None:
            sleeper.kill()
        cg.remove()
