"""The one reader of cgroup files: missing files, a v1 and a v2 folder, a separate cpuacct folder, bad and live files."""

from __future__ import annotations

import doctest

import pytest

import throttlelab.ingest.cgroup.cgroup_reader as mod
from throttlelab.errors import InputError
from throttlelab.ingest.cgroup import CpuFiles, read_cgroup_file, read_cpu_files


def test_doctests_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the example makes a folder
    result = doctest.testmod(mod)
    assert result.attempted >= 4 and result.failed == 0


def test_missing_file_reads_as_its_default(tmp_path):
    assert read_cgroup_file(tmp_path / "cpu.max", "") == ""
    assert read_cgroup_file(tmp_path / "cpu.max") is None
    with pytest.raises(IsADirectoryError):  # any other error is reading's own
        read_cgroup_file(tmp_path)


def test_v1_and_v2_folders(fixtures):
    v2 = read_cpu_files(fixtures / "cgroup_v2")
    assert v2.cpu_max is not None and v2.quota_period is None and v2.usage_ns is None and "usage_usec" in v2.cpu_stat
    v1 = read_cpu_files(fixtures / "cgroup_v1")
    assert v1.cpu_max is None and [x.strip() for x in v1.quota_period] == ["150000", "100000"]
    assert v1.usage_ns == 7_500_000_000 and "throttled_time" in v1.cpu_stat


def test_a_separate_cpuacct_folder_and_an_empty_one(tmp_path):
    cpu, acct = tmp_path / "cpu", tmp_path / "cpuacct"
    cpu.mkdir(), acct.mkdir()
    (cpu / "cpu.stat").write_text("nr_periods 4\nnr_throttled 1\nthrottled_time 5\n")
    (cpu / "cpu.cfs_quota_us").write_text("-1\n")
    (acct / "cpuacct.usage").write_text("123\n")
    assert read_cpu_files(cpu, acct) == CpuFiles({"nr_periods": 4, "nr_throttled": 1, "throttled_time": 5}, None,
                                                 None, 123)  # no period: no v1 limit
    (cpu / "cpu.cfs_period_us").write_text("100000\n")
    assert read_cpu_files(cpu, acct).quota_period == ("-1\n", "100000\n")
    assert read_cpu_files(tmp_path / "gone") == CpuFiles(None, None, None, None)


def test_a_live_cgroup_is_read_leniently_and_a_bad_usage_is_one_line(tmp_path):
    (tmp_path / "cpu.stat").write_text("usage_usec 15\nnr_periods -1\nbad line here\n")
    assert read_cpu_files(tmp_path, strict=False).cpu_stat == {"usage_usec": 15, "nr_periods": -1}
    with pytest.raises(InputError, match="cpu.stat:2: bad cpu.stat line"):
        read_cpu_files(tmp_path)
    (tmp_path / "cpu.stat").write_text("usage_usec 15\n")
    (tmp_path / "cpuacct.usage").write_text("lots\n")
    with pytest.raises(InputError, match="cpuacct.usage:1: bad cpuacct.usage"):
        read_cpu_files(tmp_path)
