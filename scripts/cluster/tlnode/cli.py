"""``up``, ``down`` and ``status`` of the one-node cluster (``make cluster-up`` / ``make cluster-down``)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from . import leftovers, prereq
from .layout import Layout
from .procs import die_with_parent, pid_alive

HERE = Path(__file__).resolve().parents[1]


class ClusterError(Exception):
    """A problem the user can act on (one line)."""


@dataclass(frozen=True)
class Running:
    """A ready cluster."""

    prometheus: str
    kubeconfig: Path
    runner_kubeconfig: Path
    pid: int
    started_here: bool


def read_status(layout: Layout) -> dict | None:
    try:
        return json.loads(layout.status_file.read_text())
    except (OSError, ValueError):
        return None


def running(layout: Layout) -> Running | None:
    """The ready cluster, if one runs (its supervisor alive and its status ``ready``)."""
    st = read_status(layout)
    if not st or st.get("state") != "ready" or not pid_alive(int(st.get("pid", 0))):
        return None
    return Running(prometheus=st["prometheus"], kubeconfig=Path(st["kubeconfig"]),
                   runner_kubeconfig=layout.runner_kubeconfig, pid=int(st["pid"]), started_here=False)


@contextlib.contextmanager
def locked(layout: Layout):
    layout.state.mkdir(parents=True, exist_ok=True)
    with open(layout.lock_file, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def up(layout: Layout | None = None, *, attach: bool = False, timeout_s: float = 300.0,
       say=print) -> Running:
    """Start the cluster (or return the running one).

    ``attach``: the cluster stops when this process ends (tests); otherwise it
    stays up after we return.  Raises :class:`ClusterError` with one line.
    """
    layout = layout or Layout.default()
    with locked(layout):
        r = running(layout)
        if r is not None:
            say(f"cluster-up: already running (supervisor pid {r.pid})")
            return r
        t0 = time.monotonic()
        other = leftovers.foreign_cluster(layout)
        if other:
            raise ClusterError(f"{other} already runs on this machine (one node per machine): stop it first "
                               "(`make cluster-down` with its THROTTLELAB_CLUSTER_DIR)")
        left = leftovers.inventory(layout)
        if any(left.values()):
            say("cluster-up: removing what an earlier run left: "
                + "; ".join(f"{k}: {len(v)}" for k, v in left.items() if v))
            still = leftovers.clean(layout)
            if still:
                raise ClusterError(f"cannot remove leftovers of an earlier run: {still}")
            say(f"cluster-up: step leftovers {time.monotonic() - t0:.1f} s")
        problems = prereq.problems(layout)
        if problems:
            raise ClusterError(problems[0] + (f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""))
        layout.status_file.unlink(missing_ok=True)
        layout.run.mkdir(parents=True, exist_ok=True)
        layout.logs.mkdir(parents=True, exist_ok=True)
        log = open(layout.state / "supervisor.log", "ab")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, "-m", "tlnode.supervisor", "--state", str(layout.state)], cwd=HERE,
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
            preexec_fn=die_with_parent(signal.SIGTERM))
        log.close()
        try:
            st = _wait_ready(layout, proc, timeout_s, say)
            if not attach:
                proc.send_signal(signal.SIGUSR1)
                _wait(lambda: (read_status(layout) or {}).get("detached"), 10)
        except BaseException:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=60)
            raise
        say(f"cluster-up: ready in {time.monotonic() - t0:.1f} s")
        return Running(prometheus=st["prometheus"], kubeconfig=Path(st["kubeconfig"]),
                       runner_kubeconfig=layout.runner_kubeconfig, pid=proc.pid, started_here=True)


def _wait(check, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not check() and time.monotonic() < deadline:
        time.sleep(0.05)


def _wait_ready(layout: Layout, proc: subprocess.Popen, timeout_s: float, say) -> dict:
    deadline = time.monotonic() + timeout_s
    shown = 0
    while True:
        st = read_status(layout) or {}
        for name, secs in st.get("steps", [])[shown:]:
            say(f"cluster-up: step {name} {secs:.1f} s")
            shown += 1
        if st.get("state") == "ready":
            return st
        if st.get("state") in ("failed", "stopping") and st.get("error"):
            proc.wait(timeout=120)
            raise ClusterError(f"{st['error'].splitlines()[0]} (logs: {layout.logs})")
        if proc.poll() is not None:
            raise ClusterError(f"the cluster supervisor exited with {proc.returncode} "
                               f"(see {layout.state / 'supervisor.log'})")
        if time.monotonic() > deadline:
            raise ClusterError(f"the cluster was not ready after {timeout_s:g} s (logs: {layout.logs})")
        time.sleep(0.1)


def down(layout: Layout | None = None, say=print) -> dict[str, list[str]]:
    """Stop the cluster and remove everything of it; return what is left (empty: nothing)."""
    layout = layout or Layout.default()
    t0 = time.monotonic()
    st = read_status(layout)
    other = leftovers.foreign_cluster(layout)
    if other and not (st and pid_alive(int(st.get("pid", 0)))):
        raise ClusterError(f"{other} runs on this machine, not the cluster of {layout.state}: "
                           "stop it with its THROTTLELAB_CLUSTER_DIR")
    with locked(layout):
        if st and pid_alive(int(st.get("pid", 0))):
            os.kill(int(st["pid"]), signal.SIGTERM)
            _wait(lambda: not pid_alive(int(st["pid"])), 90)
        left = leftovers.clean(layout)
    say(f"cluster-down: done in {time.monotonic() - t0:.1f} s" + (f"; LEFT: {left}" if left else ", nothing left"))
    return left


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="cluster.py", description=__doc__)
    ap.add_argument("command", choices=["up", "down", "status", "leftovers"])
    args = ap.parse_args(argv)
    layout = Layout.default()
    try:
        if args.command == "up":
            r = up(layout)
            print(f"PROMETHEUS={r.prometheus}")
            print(f"KUBECONFIG={r.kubeconfig}")
        elif args.command == "down":
            return 1 if down(layout) else 0
        elif args.command == "status":
            r = running(layout)
            print(json.dumps(read_status(layout) or {"state": "down"}, indent=1))
            return 0 if r else 3
        else:
            left = {k: v for k, v in leftovers.inventory(layout).items() if v}
            print(json.dumps(left, indent=1))
            return 1 if left else 0
    except ClusterError as exc:
        print(f"cluster-{args.command}: ERROR: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"cluster-{args.command}: interrupted; stopped what it had started", file=sys.stderr)
        return 130
    return 0
