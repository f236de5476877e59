"""Tests of throttlelab.experiment.kubernetes.ladder: rungs resized in place, windows of the kernel's counters."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from throttlelab.experiment.kubernetes import ladder as kl


def _cgroup(root: Path, quota_us: int = 10000) -> tuple[Path, Path]:
    cpu, acct = root / "cpu", root / "cpuacct"
    cpu.mkdir(parents=True)
    acct.mkdir(parents=True)
    (cpu / "cpu.cfs_quota_us").write_text(f"{quota_us}\n")
    (cpu / "cpu.cfs_period_us").write_text("100000\n")
    _stat(cpu, acct, 0, 0, 0, 0)
    return cpu, acct


def _stat(cpu: Path, acct: Path, periods: int, throttled: int, throttled_ns: int, usage_ns: int) -> None:
    (cpu / "cpu.stat").write_text(f"nr_periods {periods}\nnr_throttled {throttled}\nthrottled_time {throttled_ns}\n")
    (acct / "cpuacct.usage").write_text(f"{usage_ns}\n")


def test_a_window_sums_the_pods_counters_between_its_edges(tmp_path):
    a, b = _cgroup(tmp_path / "a"), _cgroup(tmp_path / "b")

    def advance():
        time.sleep(0.15)
        _stat(*a, 10, 4, 200_000_000, 50_000_000)
        _stat(*b, 10, 6, 300_000_000, 70_000_000)

    threading.Thread(target=advance).start()
    [w] = kl.read_windows([a, b], 0.1, windows=1, window_s=0.4)
    assert (w.periods, w.throttled, w.pods, w.limit_cores) == (20, 10, 2, 0.1)
    assert w.throttled_seconds == pytest.approx(0.5) and w.cpu_seconds == pytest.approx(0.12)
    assert w.ratio == 0.5 and w.row()["ratio"] == 0.5


def test_a_rung_waits_until_the_kernel_holds_its_quota(tmp_path):
    d = _cgroup(tmp_path / "c", quota_us=10000)
    kl.wait_quota([d], 0.1, timeout_s=1)
    with pytest.raises(TimeoutError, match="not 0.2"):
        kl.wait_quota([d], 0.2, timeout_s=0.6)
    (d[0] / "cpu.cfs_quota_us").write_text("-1\n")
    kl.wait_quota([d], None, timeout_s=1)
    assert kl.quota_cores(d) is None


def test_a_resize_patches_the_containers_limit_and_request_and_removes_a_limit_with_null():
    calls = []
    core = SimpleNamespace(patch_namespaced_pod_resize=lambda *a: calls.append(a))
    kl.resize(core, "ns", "p", "main", 0.25, 0.1)
    kl.resize(core, "ns", "p", "main", None, 0.1)
    res = [c[2]["spec"]["containers"][0]["resources"] for c in calls]
    assert res[0] == {"requests": {"cpu": "100m"}, "limits": {"cpu": "250m"}}
    assert res[1] == {"requests": {"cpu": "100m"}, "limits": {"cpu": None}}
