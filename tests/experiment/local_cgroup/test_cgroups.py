"""cgroup control: v2 on a fixture folder, v1 on this machine's real cgroups."""

from __future__ import annotations

import sys
import time

import pytest

from throttlelab.experiment.local_cgroup.cgroup_orphans import owner_name
from throttlelab.experiment.local_cgroup.cgroups import Cgroup
from throttlelab.experiment.local_cgroup.cgroup_process import CgroupProcess
from throttlelab.experiment.local_cgroup.monitor_sampler import MonitorSampler
from throttlelab.ingest.monitor_log import read_monitor_log

V2_STAT = ("usage_usec 1500000\nuser_usec 1400000\nsystem_usec 100000\nnr_periods 30\nnr_throttled 27\n"
           "throttled_usec 2500000\nnr_bursts 0\nburst_usec 0\n")


# -- cgroup v2, on the fixture ---------------------------------------------------
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


# -- cgroup v1, this machine -----------------------------------------------------
@pytest.mark.cgroup
def test_real_cgroup_child_joins_before_exec_and_is_removed(cgroup_layout):
    cg = Cgroup(cgroup_layout, f"{owner_name()}/t-join").create()
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
