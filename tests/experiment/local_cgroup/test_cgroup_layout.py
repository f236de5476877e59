"""cgroup layout detection: v2 on a fixture folder, v1 on this machine's real cgroups."""

from __future__ import annotations

import pytest

from throttlelab.errors import EnvironmentProblem
from throttlelab.experiment.local_cgroup.cgroup_layout import detect_layout


# -- cgroup v2, on the fixture ---------------------------------------------------
def test_v2_detects_the_delegated_parent_of_our_cgroup(v2_root, v2_layout):
    assert v2_layout.version == 2
    assert v2_layout.base == v2_root / "sys/fs/cgroup/user.slice/delegated"
    assert v2_layout.cpuacct_base is None and v2_layout.has_burst


def test_v2_without_cpu_controller_says_what_is_needed(v2_root):
    (v2_root / "sys/fs/cgroup/user.slice/delegated/cgroup.controllers").write_text("memory pids\n")
    with pytest.raises(EnvironmentProblem, match="no cpu controller.*delegate a cgroup v2 subtree"):
        detect_layout(mounts=v2_root / "proc/mounts", self_cgroup=v2_root / "proc/self_cgroup", simulated=True)


def test_no_cgroup_mounted(tmp_path):
    (tmp_path / "mounts").write_text("proc /proc proc rw 0 0\n")
    (tmp_path / "cg").write_text("0::/\n")
    with pytest.raises(EnvironmentProblem, match="root"):
        detect_layout(mounts=tmp_path / "mounts", self_cgroup=tmp_path / "cg", root=None)


# -- cgroup v1, this machine -----------------------------------------------------
@pytest.mark.cgroup
def test_v1_layout_on_this_machine(cgroup_layout):
    if cgroup_layout.version != 1:
        pytest.skip("this machine's CPU cgroup is not v1")
    assert (cgroup_layout.base / "cpu.cfs_quota_us").exists()
    assert (cgroup_layout.cpuacct_base / "cpuacct.usage").exists()
