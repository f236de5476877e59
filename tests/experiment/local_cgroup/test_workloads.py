"""Workload command lines, and the compiled helpers actually running."""

from __future__ import annotations

import os
import subprocess

import pytest

from throttlelab.errors import SpecError
from throttlelab.experiment.local_cgroup import workloads
from throttlelab.experiment.sweeps.plan import Workload


def test_ffmpeg_command():
    w = Workload("ffmpeg", options={"duration": 1, "size": "320x240", "frames": 10})
    argv = workloads.build_command(w, "4").argv
    assert "testsrc2=size=320x240:rate=30:duration=1" in argv
    assert argv[argv.index("-threads") + 1] == "4" and argv[argv.index("-c:v") + 1] == "libx264"
    assert argv[argv.index("-frames:v") + 1] == "10"
    assert "-threads" not in workloads.build_command(w, "auto").argv


def test_ffmpeg_runs():
    w = Workload("ffmpeg", options={"duration": 0.2, "size": "160x120"})
    proc = subprocess.run(workloads.build_command(w, "1").argv, capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_command_substitution():
    cmd = workloads.build_command(Workload("command", command="stress --cpu {threads} -n '{nproc} x'"), "auto")
    assert cmd.argv == ["stress", "--cpu", "auto", "-n", f"{os.cpu_count()} x"]


def test_bad_option():
    with pytest.raises(SpecError, match="cpu_seconds"):
        workloads.build_command(Workload("burner", options={"cpu_seconds": "lots"}), "1")


def test_native_burner_builds_once_and_burns(tmp_path, monkeypatch):
    monkeypatch.setenv("THROTTLELAB_CACHE", str(tmp_path))
    exe = workloads.native_burner()
    if exe is None:
        pytest.skip("no C compiler: the burner falls back to Python processes")
    assert exe.parent == tmp_path / "bin" and workloads.native_burner() == exe
    out = subprocess.run([str(exe), "2", "0.1"], capture_output=True, text=True, timeout=30, check=True)
    assert out.stdout.startswith("burner threads=2 cpu_seconds=0.100")


def test_python_burner_fallback(monkeypatch):
    monkeypatch.setattr(workloads, "native_burner", lambda: None)
    argv = workloads.burner_argv("2", 0.05)
    out = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=True)
    assert "threads=2" in out.stdout


@pytest.mark.slow
def test_go_spinner_reports_gomaxprocs():
    if workloads.go_exe() is None:
        pytest.skip("Go is not installed")
    cmd = workloads.build_command(Workload("go", options={"work": 5}), "3")
    assert cmd.env == {"GOMAXPROCS": "3"}
    out = subprocess.run(cmd.argv, env={**os.environ, **cmd.env}, capture_output=True, text=True, timeout=60,
                         check=True)
    assert "gomaxprocs=3" in out.stdout and "goroutines=3" in out.stdout
