"""cgroup detection and control: v2 on a fixture folder, v1 on this machine's real cgroups."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from throttlelab.errors import EnvironmentProblem
from throttlelab.experiment import cgroups
from throttlelab.experiment.cgroups import Cgroup, detect_layout
from throttlelab.experiment.process import CgroupProcess
from throttlelab.experiment.sampler import MonitorSampler
from throttlelab.ingest.monitor_log import read_monitor_log

V2_STAT = ("usage_usec 1500000\nuser_usec 1400000\nsystem_usec 100000\nnr_periods 30\nnr_throttled 27\n"
           "throttled_usec 2500000\nnr_bursts 0\nburst_usec 0\n")


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


def test_v2_create_limit_join_read_remove(v2_layout):
    cg = Cgroup(v2_layout, "o1-2/run-a").create()
    base = v2_layout.base
    # the cpu controller is passed down every level to the run's parent
    for d in (base, base / "throttlelab", base / "throttlelab/o1-2"):
        assert (d / "cgroup.subtree_control").read_text() == "+cpu"
    cg.set_limit(50_000, 100_000, burst_us=20_000)
    assert (cg.dir / "cpu.max").read_text() == "50000 100000"
    assert (cg.dir / "cpu.max.burst").read_text() == "20000"
    cg.set_limit(None, 50_000)
    assert (cg.dir / "cpu.max").read_text() == "max 50000"
    cg.set_weight(2)
    assert (cg.dir / "cpu.weight").read_text() == "200"
    # a child writes its own pid into cgroup.procs before it execs
    proc = CgroupProcess([sys.executable, "-c", "pass"], cgroup=cg).start()
    assert proc.wait(30)
    assert (cg.dir / "cgroup.procs").read_text() == str(proc.pid)
    assert proc.result.exit_code == 0
    # the kernel's files, as it would show them
    (cg.dir / "cpu.stat").write_text(V2_STAT)
    (cg.dir / "cpu.max").write_text("50000 100000\n")
    c = cg.read()
    assert c.usage_ns == 1_500_000_000 and c.cpu_seconds == 1.5
    assert (c.nr_periods, c.nr_throttled, c.throttled_seconds) == (30, 27, 2.5)
    assert c.cpu_max == "50000 100000"
    cg.remove()
    assert not cg.dir.exists()


def test_v2_monitor_log_ingests(v2_layout, tmp_path):
    cg = Cgroup(v2_layout, "o1-2/run-b").create()
    cg.set_limit(50_000, 100_000)
    log = tmp_path / "m.log"
    with MonitorSampler(cg, log, interval_s=0.1, pod="run-b") as s:
        (cg.dir / "cpu.stat").write_text(V2_STAT.replace("1500000", "0", 1))
        s.sample()
        time.sleep(0.01)
        (cg.dir / "cpu.stat").write_text(V2_STAT)
        s.sample()
    res = read_monitor_log(log, strict=True)
    df = res.samples
    assert df.height == 2 and df["cgroup_version"].to_list() == [2, 2]
    assert df["usage_seconds"].to_list() == [0.0, 1.5]
    assert df["limit_cores"].to_list() == [0.5, 0.5]
    assert df["pod"].to_list() == ["run-b", "run-b"]


def test_v2_orphans_of_dead_owners_are_removed(v2_layout):
    mine = Cgroup(v2_layout, f"{cgroups.owner_name()}/run").create()
    dead = Cgroup(v2_layout, "o999999999-1/run").create()
    orphans = cgroups.find_orphans(v2_layout)
    assert orphans == [dead.dir.parent]
    assert cgroups.remove_orphans(v2_layout) == [str(dead.dir.parent)]
    assert not dead.dir.parent.exists() and mine.dir.exists()


# -- cgroup v1, this machine -----------------------------------------------------
@pytest.mark.cgroup
def test_v1_layout_on_this_machine(cgroup_layout):
    if cgroup_layout.version != 1:
        pytest.skip("this machine's CPU cgroup is not v1")
    assert (cgroup_layout.base / "cpu.cfs_quota_us").exists()
    assert (cgroup_layout.cpuacct_base / "cpuacct.usage").exists()


@pytest.mark.cgroup
def test_real_cgroup_child_joins_before_exec_and_is_removed(cgroup_layout):
    cg = Cgroup(cgroup_layout, f"{cgroups.owner_name()}/t-join").create()
    try:
        cg.set_limit(20_000, 100_000)
        # the child prints the cgroups it is in, as its first instructions
        code = "print(open('/proc/self/cgroup').read())"
        out = cg.dir.parent / "out.txt" if cgroup_layout.simulated else None
        import tempfile

        with tempfile.NamedTemporaryFile("r", suffix=".txt") as fh:
            proc = CgroupProcess([sys.executable, "-c", code], cgroup=cg, output=fh.name).start()
            assert proc.wait(30)
            text = open(fh.name).read()
        assert f"/throttlelab/{cg.relpath}" in text
        if cgroup_layout.version == 1 and cgroup_layout.cpuacct_base != cgroup_layout.base:
            lines = [ln for ln in text.splitlines() if ":cpu:" in ln or ":cpuacct:" in ln]
            assert len(lines) == 2 and all(ln.endswith(cg.relpath) for ln in lines)
        assert out is None
    finally:
        cg.remove()
    assert not any(d.exists() for d in cg.dirs)


@pytest.mark.cgroup
def test_real_orphan_with_a_running_process_is_killed_and_removed(cgroup_layout):
    # a process that owns a cgroup and dies, leaving a busy-sleeping child inside
    script = (
        "import sys, subprocess\n"
        "from throttlelab.experiment import cgroups\n"
        "from throttlelab.experiment.process import CgroupProcess\n"
        "lay = cgroups.detect_layout()\n"
        "cg = cgroups.Cgroup(lay, cgroups.owner_name() + '/r').create()\n"
        "subprocess.Popen(['sleep', '60'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=lambda: [open(d / 'cgroup.procs', 'w').write('0') for d in cg.dirs])\n"
        "print(cgroups.owner_name(), flush=True)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    owner = out.stdout.strip()
    d = cgroup_layout.parent / owner
    assert d.exists()
    sleeper = [int(p) for p in (d / "r" / "cgroup.procs").read_text().split()]
    assert sleeper
    assert str(d) in [str(p) for p in cgroups.find_orphans(cgroup_layout)]
    cgroups.remove_orphans(cgroup_layout)
    assert not d.exists()
    assert not (cgroup_layout.cpuacct_base / "throttlelab" / owner).exists()
    time.sleep(0.05)
    for pid in sleeper:
        assert not os.path.exists(f"/proc/{pid}") or "Z" in open(f"/proc/{pid}/stat").read().split()[2]
