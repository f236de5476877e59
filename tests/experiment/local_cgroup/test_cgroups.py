"""cgroup control on a cgroup v2 fixture folder: create, limit, join, read, remove."""

from __future__ import annotations

import sys

from throttlelab.experiment.local_cgroup.cgroups import Cgroup
from throttlelab.experiment.local_cgroup.cgroup_process import CgroupProcess

from .cpu_stat_files import V2_STAT


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



def test_read_skips_a_line_being_rewritten_and_a_missing_file(v2_layout):
    """A live cgroup's cpu.stat is read leniently (core.cpu_stat, strict=False): odd lines skipped, not an error."""
    cg = Cgroup(v2_layout, "o1-2/run-b").create()
    (cg.dir / "cpu.stat").write_text("usage_usec 15\nnr_periods -1\nbad line here\nthrottled_usec x\nnr_throttled 4\n")
    c = cg.read()
    assert c.cpu_stat == {"usage_usec": 15, "nr_periods": -1, "nr_throttled": 4}
    assert (c.usage_ns, c.nr_throttled, c.throttled_seconds) == (15_000, 4, 0.0)
    (cg.dir / "cpu.stat").unlink()
    assert cg.read().cpu_stat == {} and cg.read().nr_periods == 0
    cg.remove()
