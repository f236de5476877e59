"""A killed test process leaves no control-plane process behind (PR_SET_PDEATHSIG), and the
next start removes an earlier run's folder and processes (remove_stale_runs)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from .control_plane import REPO, WORKDIR_PREFIX, built, bin_dir, remove_stale_runs

pytestmark = pytest.mark.kube


def _processes_naming(text: str) -> list[int]:
    out = []
    for p in (int(x) for x in os.listdir("/proc") if x.isdigit()):
        try:
            if text in Path(f"/proc/{p}/cmdline").read_bytes().decode(errors="replace"):
                out.append(p)
        except OSError:
            pass
    return [p for p in out if p != os.getpid()]


def test_sigkill_of_the_test_process_stops_every_component():
    if not built(bin_dir()):
        pytest.skip("control plane not built (make control-plane)")
    code = ("import time; from tests.experiment.kubernetes.control_plane import start_control_plane, bin_dir; "
            "cp = start_control_plane(bin_dir()); print(cp.workdir, flush=True); time.sleep(600)")
    owner = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.PIPE, text=True)
    workdir = owner.stdout.readline().strip()
    assert workdir.startswith(tempfile.gettempdir()), workdir
    assert len(_processes_naming(workdir)) >= 3  # etcd, kube-apiserver, kube-scheduler, kwok
    owner.send_signal(signal.SIGKILL)
    owner.wait()
    deadline = time.monotonic() + 10
    while _processes_naming(workdir) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_naming(workdir) == []
    # its folder is left (SIGKILL runs no cleanup): the next start removes it
    assert Path(workdir).is_dir()
    assert workdir in remove_stale_runs()
    assert not Path(workdir).exists()


def test_stale_runs_of_a_live_owner_are_kept(tmp_path):
    live = tmp_path / f"{WORKDIR_PREFIX}live"
    dead = tmp_path / f"{WORKDIR_PREFIX}dead"
    for d, pid in ((live, os.getpid()), (dead, 2 ** 22 + 12345)):
        d.mkdir()
        (d / "owner.pid").write_text(str(pid))
    # a process whose command line names the dead run's folder (sh -c would exec sleep and lose it)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", str(dead)])
    # until the child has exec'd, its command line is pytest's (CI once looked too early, under load)
    deadline = time.monotonic() + 30
    while str(dead) not in Path(f"/proc/{sleeper.pid}/cmdline").read_bytes().decode(errors="replace"):
        assert time.monotonic() < deadline, "the sleeper never started"
        time.sleep(0.01)
    try:
        assert remove_stale_runs(tmp_path) == [str(dead)]
        assert live.is_dir() and not dead.exists()
        assert sleeper.wait(timeout=5) == -signal.SIGKILL
    finally:
        if sleeper.poll() is None:
            sleeper.kill()
