"""The service pod's command and reading a container's cgroup on this machine (fixture folders);
the whole latency point on real pods is in test_node.py."""

from __future__ import annotations

from throttlelab.experiment.kubernetes import latency_pods as lp
from throttlelab.experiment.latency.service.pipeline import PipelineConfig


def _container(root, qos: str, uid: str, cid: str, stat: str, usage: int, quota: int) -> None:
    for ctl in ("cpu", "cpuacct"):
        d = root / ctl / "kubepods" / qos / f"pod{uid}" / cid
        d.mkdir(parents=True)
        if ctl == "cpu":
            (d / "cpu.stat").write_text(stat)
            (d / "cpu.cfs_quota_us").write_text(f"{quota}\n")
            (d / "cpu.cfs_period_us").write_text("100000\n")
        else:
            (d / "cpuacct.usage").write_text(f"{usage}\n")


def test_container_cgroup_is_found_in_its_qos_class_and_read(tmp_path, monkeypatch):
    monkeypatch.setattr(lp, "CGROUP", tmp_path)
    _container(tmp_path, "burstable", "u-1", "abc", "nr_periods 40\nnr_throttled 30\nthrottled_time 2000000000\n",
               1_500_000_000, 50000)
    dirs = lp.container_cgroup("u-1", "containerd://abc")
    assert dirs == (tmp_path / "cpu/kubepods/burstable/podu-1/abc", tmp_path / "cpuacct/kubepods/burstable/podu-1/abc")
    c = lp.read_counters(dirs)
    assert (c.nr_periods, c.nr_throttled, c.throttled_seconds, c.cpu_seconds, c.cpu_max) == (
        40, 30, 2.0, 1.5, "50000 100000")
    assert lp.container_cgroup("u-2", "containerd://abc") is None


def test_service_command_runs_the_projects_service_in_the_pod():
    svc = lp.PodService(placement=None, config=PipelineConfig(max_workers=4, semaphore=2))
    cmd = svc.command()
    assert cmd[:2] == ["chroot", "/host"] and "--in-pod" in cmd
    assert cmd[cmd.index("--port") + 1] == str(lp.PORT)
    assert cmd[cmd.index("--max-workers") + 1] == "4" and cmd[cmd.index("--semaphore") + 1] == "2"
