"""Leftover detection: our processes are found by the state folder in their command line."""

from __future__ import annotations

import subprocess
import time

from tlnode import leftovers, procs


def test_processes_naming_the_state_folder_are_found_and_killed(layout):
    layout.state.mkdir(parents=True)
    p = subprocess.Popen(["sh", "-c", f"sleep 60 # {layout.state}/x"])
    try:
        deadline = time.monotonic() + 30  # until sh has exec'd, its command line is pytest's
        while str(layout.state) not in open(f"/proc/{p.pid}/cmdline", "rb").read().decode(errors="replace"):
            assert time.monotonic() < deadline, "the sleeper never started"
            time.sleep(0.01)
        assert p.pid in leftovers.our_processes(layout)
        leftovers.clean(layout)
        assert p.wait(timeout=10) is not None
        assert p.pid not in leftovers.our_processes(layout)
    finally:
        if p.poll() is None:
            p.kill()


def test_a_child_with_pdeathsig_dies_with_its_parent(tmp_path):
    marker = tmp_path / "child.pid"
    code = ("import sys, subprocess, time; sys.path.insert(0, sys.argv[1]); from tlnode.procs import spawn; "
            f"p = spawn(['sleep', '60'], __import__('pathlib').Path('{tmp_path}/log')); "
            f"open('{marker}', 'w').write(str(p.pid)); time.sleep(60)")
    from .conftest import CLUSTER_DIR

    parent = subprocess.Popen(["python3", "-c", code, str(CLUSTER_DIR)])
    deadline = time.monotonic() + 10
    while not marker.exists() or not marker.read_text():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    child = int(marker.read_text())
    assert procs.pid_alive(child)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 5
    while procs.pid_alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not procs.pid_alive(child)


def test_nothing_is_reported_for_an_unused_state_folder(layout):
    inv = leftovers.inventory(layout)
    assert inv["processes"] == [] and inv["mounts"] == [] and inv["files outside the state folder"] == []
