"""Tests of throttlelab.experiment.local_cgroup.monitor_sampler: a monitor log the ingest layer reads."""

from __future__ import annotations

import time

from throttlelab.experiment.local_cgroup.cgroups import Cgroup
from throttlelab.experiment.local_cgroup.monitor_sampler import MonitorSampler
from throttlelab.ingest.monitor.monitor_log import read_monitor_log

from .cpu_stat_files import V2_STAT


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
