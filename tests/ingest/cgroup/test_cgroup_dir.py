"""Raw cgroup directories -> one samples row."""

from __future__ import annotations

from pathlib import Path

import pytest

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.ingest.cgroup.cgroup_dir import read_cgroup_dir


def test_v2_directory(fixtures):
    s = read_cgroup_dir(fixtures / "cgroup_v2").samples
    assert tables.validate(s, "samples") == []
    row = s.row(0, named=True)
    assert row["cgroup_version"] == 2 and row["nr_periods"] == 239 and row["nr_throttled"] == 232
    assert row["usage_seconds"] == 90.0 and row["throttled_seconds"] == 12.0 and row["limit_cores"] == 4.0


def test_v1_directory(fixtures):
    row = read_cgroup_dir(fixtures / "cgroup_v1").samples.row(0, named=True)
    assert row["cgroup_version"] == 1 and row["usage_seconds"] == 7.5 and row["throttled_seconds"] == 1.5
    assert row["limit_cores"] == 1.5 and row["period_us"] == 100000


def test_missing_directory(tmp_path):
    with pytest.raises(InputError, match="directory not found"):
        read_cgroup_dir(tmp_path / "nope")
    with pytest.raises(InputError, match="no cpu.stat"):
        read_cgroup_dir(tmp_path)


@pytest.mark.cgroup
def test_this_machines_cgroup_v1():
    cpu, acct = Path("/sys/fs/cgroup/cpu"), Path("/sys/fs/cgroup/cpuacct")
    if not (cpu / "cpu.stat").exists() or not (acct / "cpuacct.usage").exists():
        pytest.skip("no cgroup v1 cpu and cpuacct hierarchies on this machine")
    s = read_cgroup_dir(cpu, cpuacct_dir=acct, strict=True).samples
    assert s.height == 1 and s["cgroup_version"][0] == 1 and s["usage_seconds"][0] > 0
