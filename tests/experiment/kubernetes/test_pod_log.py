"""Result collection from pod logs, on captured logs (kwok serves none) and on the
sampler script run for real on this machine's cgroups and on cgroup v2 fixture folders."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from throttlelab.errors import InputError
from throttlelab.experiment.kubernetes.manifests import sampler_script
from throttlelab.experiment.kubernetes.pod_log import split_pod_log
from throttlelab.experiment.kubernetes.pod_summary import summarise_samples
from throttlelab.ingest.monitor.monitor_log import parse_monitor_text

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "kubernetes"


def _samples(monitor: str):
    result = parse_monitor_text(monitor, source="pod-log")
    assert result.skipped.total == 0, result.skipped.summary()
    return result.samples


def test_captured_v1_log_gives_throttling_totals():
    parts = split_pod_log((FIXTURES / "run_v1_throttled.log").read_text())
    assert parts.complete and parts.exit_code == 0
    assert parts.wall_seconds == pytest.approx(1.54)
    assert parts.started_at == dt.datetime(2026, 11, 21, 1, 9, 9, 189000, tzinfo=dt.timezone.utc)
    assert parts.output == "burned 2 threads\n"
    samples = _samples(parts.monitor)
    assert samples.height == 4
    assert samples["cgroup_version"].unique().to_list() == [1]
    assert samples["limit_cores"].unique().to_list() == [0.2]
    totals = summarise_samples(samples)
    assert totals["nr_throttled"] == totals["nr_periods"] == 16
    assert totals["throttled_seconds"] > 1.0
    # 0.2 cores over ~1.5 s: about 0.3 s of CPU, never more than quota x periods
    assert 0 < totals["cpu_seconds"] <= 0.2 * 0.1 * 17


def test_captured_v2_log_matches_the_write_up_counts():
    parts = split_pod_log((FIXTURES / "run_v2_ok.log").read_text())
    assert parts.complete and parts.exit_code == 0 and parts.wall_seconds == 23.91
    totals = summarise_samples(_samples(parts.monitor))
    assert (totals["nr_periods"], totals["nr_throttled"]) == (239, 232)
    assert totals["cpu_seconds"] == pytest.approx(90.0)
    assert totals["user_seconds"] == pytest.approx(81.0, rel=1e-3)
    assert totals["throttled_seconds"] == pytest.approx(47.9)


def test_non_zero_exit_is_read():
    parts = split_pod_log((FIXTURES / "run_v2_exit3.log").read_text())
    assert parts.complete and parts.exit_code == 3
    assert "Error while opening encoder" in parts.output


def test_log_cut_by_a_killed_container_keeps_the_blocks_so_far():
    parts = split_pod_log((FIXTURES / "run_v2_oom_cut.log").read_text())
    assert not parts.complete and parts.exit_code is None
    result = parse_monitor_text(parts.monitor, source="pod-log")
    # the sixth block was cut mid-line: kept with what it has, the cut line counted as skipped
    assert result.samples.height == 6
    assert result.skipped.total == 1


def test_a_log_without_the_sampler_names_the_pod():
    with pytest.raises(InputError, match="pod tl/x log: no throttlelab sampler output"):
        split_pod_log((FIXTURES / "run_no_sampler.log").read_text(), source="pod tl/x log")


def _run_sampler(tmp_path: Path, cgroot: Path, *cmd: str) -> subprocess.CompletedProcess:
    script = tmp_path / "sampler.sh"
    script.write_text(sampler_script())
    env = {**os.environ, "THROTTLELAB_CGROUP_ROOT": str(cgroot), "THROTTLELAB_INTERVAL": "0.1",
           "THROTTLELAB_WORKDIR": str(tmp_path / "work"), "THROTTLELAB_POD": "p", "THROTTLELAB_NAMESPACE": "ns"}
    return subprocess.run(["sh", str(script), *cmd], capture_output=True, text=True, env=env, timeout=30)


def test_sampler_reads_a_cgroup_v2_folder_and_passes_the_exit_code(tmp_path):
    cg = tmp_path / "cg"
    cg.mkdir()
    (cg / "cpu.stat").write_text("usage_usec 1000\nuser_usec 800\nsystem_usec 200\nnr_periods 5\n"
                                 "nr_throttled 2\nthrottled_usec 300\nnr_bursts 0\nburst_usec 0\n")
    (cg / "cpu.max").write_text("150000 100000\n")
    proc = _run_sampler(tmp_path, cg, "sh", "-c", "echo out; echo err >&2; sleep 0.25; exit 7")
    assert proc.returncode == 7
    parts = split_pod_log(proc.stdout)
    assert parts.complete and parts.exit_code == 7 and parts.wall_seconds >= 0.2
    assert sorted(parts.output.split()) == ["err", "out"]
    samples = _samples(parts.monitor)
    assert samples.height >= 2
    assert samples["cgroup_version"].unique().to_list() == [2]
    assert samples["limit_cores"].unique().to_list() == [1.5]
    assert samples["pod"].unique().to_list() == ["p"]


def test_sampler_without_cgroup_files_still_times_the_workload(tmp_path):
    proc = _run_sampler(tmp_path, tmp_path / "missing", "true")
    parts = split_pod_log(proc.stdout)
    assert proc.returncode == 0 and parts.complete and parts.exit_code == 0


@pytest.mark.skipif(not os.access("/sys/fs/cgroup/cpu/cpu.stat", os.R_OK), reason="no cgroup v1 cpu controller here")
def test_sampler_reads_this_machines_cgroup_v1(tmp_path):
    proc = _run_sampler(tmp_path, Path("/sys/fs/cgroup"), "true")
    samples = _samples(split_pod_log(proc.stdout).monitor)
    assert samples["cgroup_version"].unique().to_list() == [1]
    assert samples["usage_seconds"].null_count() == 0


@pytest.mark.skipif(shutil.which("busybox") is None, reason="busybox (busybox-static, installed by make node-tools) is missing")
@pytest.mark.parametrize("workload", [["true"], ["sleep", "0.35"]])
def test_sampler_under_busybox_gives_every_block_its_own_subsecond_time(tmp_path, workload):
    # busybox `date` has no %N: block times used to be whole seconds, so a short run's first
    # and last blocks shared a time, the reader skipped the last as a duplicate, and the run
    # had no CPU total (CI: an unlimited pod with cpu_seconds None)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    busybox = shutil.which("busybox")
    for applet in ("sh", "date", "sleep", "tail", "mkdir", "hostname", "true"):
        (bin_dir / applet).symlink_to(busybox)
    script = tmp_path / "sampler.sh"
    script.write_text(sampler_script())
    env = {"PATH": str(bin_dir), "THROTTLELAB_CGROUP_ROOT": "/sys/fs/cgroup", "THROTTLELAB_INTERVAL": "0.1",
           "THROTTLELAB_WORKDIR": str(tmp_path / "work"), "THROTTLELAB_POD": "p", "THROTTLELAB_NAMESPACE": "ns"}
    before = dt.datetime.now(dt.timezone.utc)
    proc = subprocess.run([str(bin_dir / "sh"), str(script), *workload], capture_output=True, text=True,
                          env=env, timeout=30)
    after = dt.datetime.now(dt.timezone.utc)
    assert proc.returncode == 0, proc.stderr
    monitor = split_pod_log(proc.stdout).monitor
    blocks = [line for line in monitor.splitlines() if line.startswith("--- ")]
    samples = _samples(monitor)  # nothing skipped: no duplicate or out-of-order time
    assert samples.height == len(blocks) >= 2
    times = samples["timestamp"].to_list()
    assert all(a < b for a, b in zip(times, times[1:]))
    assert {t.microsecond for t in times} != {0}  # sub-second, not whole seconds
    # anchored to the clock to within its second
    assert before - dt.timedelta(seconds=1) <= times[0] <= after + dt.timedelta(seconds=1)
    if os.access("/sys/fs/cgroup/cpuacct/cpuacct.usage", os.R_OK):
        assert summarise_samples(samples)["cpu_seconds"] is not None
