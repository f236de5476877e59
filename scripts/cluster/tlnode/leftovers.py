"""Finding and removing everything a cluster run leaves on the machine, killed runs included.

Ours is recognised without guessing: processes whose command line names the
state folder (or whose cgroup is under ``kubepods``), mounts under the state
folder, pod network namespaces holding an address of our pod subnet, the
``kubepods`` cgroups, the interfaces ``tl-node0``/``tl-cni0``, and the few
links the node puts outside the state folder.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import shutil
import subprocess
import time
from pathlib import Path

from .layout import NODE_IFACE, POD_BRIDGE, POD_SUBNET, Layout
from .procs import all_pids, cmdline, kill_pids, pid_alive

CGROUP_ROOT = Path("/sys/fs/cgroup")
CONTAINERD_LINK = Path("/run/containerd/containerd.sock")
NETNS_DIR = Path("/run/netns")
CONTAINER_LOG_LINKS = Path("/var/log/containers")
CNI_CACHE = Path("/var/lib/cni/results")


def _ancestors() -> set[int]:
    out, pid = set(), os.getpid()
    while pid > 1:
        out.add(pid)
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            break
    return out


def our_processes(layout: Layout) -> list[int]:
    """Processes whose command line names the state folder (components, shims, the supervisor)."""
    key = str(layout.state)
    skip = _ancestors()
    return [p for p in all_pids() if p not in skip and any(key in a for a in cmdline(p))]


def foreign_cluster(layout: Layout) -> str | None:
    """A kubelet or cluster supervisor of ANOTHER state folder runs here: its description, else None.

    Interfaces, kubepods cgroups and pod processes are machine-wide: cleaning them for
    one state folder while another cluster runs would break that one.
    """
    key = str(layout.state)
    for p in all_pids():
        args = cmdline(p)
        if not args:
            continue
        is_kubelet = Path(args[0]).name == "kubelet"
        is_supervisor = "tlnode.supervisor" in args
        if (is_kubelet or is_supervisor) and not any(key in a for a in args):
            state = next((args[i + 1] for i, a in enumerate(args[:-1]) if a == "--state"), "?")
            return f"{'a kubelet' if is_kubelet else 'a cluster with state ' + state} (pid {p})"
    return None


def kubepods_dirs() -> list[Path]:
    """``kubepods`` folders of every cgroup v1 hierarchy (and the v2 root, if any)."""
    if not CGROUP_ROOT.is_dir():
        return []
    return [d / "kubepods" for d in CGROUP_ROOT.iterdir() if (d / "kubepods").is_dir()]


def container_processes() -> list[int]:
    pids: set[int] = set()
    for top in kubepods_dirs():
        for procs in top.rglob("cgroup.procs"):
            try:
                pids.update(int(x) for x in procs.read_text().split())
            except OSError:
                pass
    return sorted(pids)


def remove_cgroups() -> list[str]:
    """rmdir the kubepods trees bottom-up (their processes must be gone)."""
    left = []
    for top in kubepods_dirs():
        dirs = sorted((d for d in top.rglob("*") if d.is_dir()), key=lambda d: len(d.parts), reverse=True)
        for d in [*dirs, top]:
            for _ in range(20):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    for p in _procs_of(d):
                        kill_pids([p], grace_s=0.2)
                    time.sleep(0.05)
        if top.exists():
            left.append(str(top))
    return left


def _procs_of(d: Path) -> list[int]:
    try:
        return [int(x) for x in (d / "cgroup.procs").read_text().split()]
    except OSError:
        return []


def our_mounts(layout: Layout) -> list[str]:
    """Mount points under the state folder, deepest first."""
    key = str(layout.state)
    points = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        mp = line.split()[4].encode().decode("unicode_escape")
        if mp == key or mp.startswith(key + "/"):
            points.append(mp)
    return sorted(set(points), key=lambda p: p.count("/"), reverse=True)


def our_netns() -> list[Path]:
    """Pod network namespaces (``/run/netns/cni-*``) holding an address of our pod subnet."""
    if not NETNS_DIR.is_dir():
        return []
    subnet = ipaddress.ip_network(POD_SUBNET)
    out = []
    for ns in sorted(NETNS_DIR.glob("cni-*")):
        res = subprocess.run(["nsenter", f"--net={ns}", "ip", "-4", "-o", "addr", "show"], capture_output=True,
                             text=True)
        addrs = [tok.split("/")[0] for tok in res.stdout.split() if "/" in tok and tok[0].isdigit()]
        if res.returncode != 0 and not _ns_mounted(ns):
            out.append(ns)  # an empty file left by a killed runtime (no namespace behind it)
            continue
        if any(ipaddress.ip_address(a) in subnet for a in addrs):
            out.append(ns)
    return out


def _ns_mounted(ns: Path) -> bool:
    return any(line.split()[4] == str(ns) for line in Path("/proc/self/mountinfo").read_text().splitlines())


def interfaces() -> list[str]:
    """Our bridges, and veths still attached to the pod bridge."""
    res = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True)
    names = []
    for line in res.stdout.splitlines():
        name = line.split(":", 2)[1].strip().split("@")[0]
        if name in (NODE_IFACE, POD_BRIDGE) or f"master {POD_BRIDGE} " in line:
            names.append(name)
    return names


def outside_files(layout: Layout) -> list[Path]:
    """Links the node left outside the state folder."""
    key = str(layout.state)
    out = []
    if CONTAINERD_LINK.is_symlink() and os.readlink(CONTAINERD_LINK).startswith(key):
        out.append(CONTAINERD_LINK)
    if CONTAINER_LOG_LINKS.is_dir():
        out += [p for p in CONTAINER_LOG_LINKS.iterdir() if p.is_symlink() and os.readlink(p).startswith(key)]
    if CNI_CACHE.is_dir():
        out += [p for p in CNI_CACHE.iterdir() if p.name.startswith("throttlelab-")]
    return out


def _remove_empty_dirs(top: Path) -> None:
    """rmdir ``top`` and its empty sub-folders (containerd's /run/containerd/{s,fifo,runc}); never
    removes anything that holds a file."""
    if not top.is_dir() or top.is_symlink():
        return
    for d in sorted((p for p in top.rglob("*") if p.is_dir() and not p.is_symlink()),
                    key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):
            d.rmdir()
    with contextlib.suppress(OSError):
        top.rmdir()


def inventory(layout: Layout) -> dict[str, list[str]]:
    """Everything of ours still on the machine (empty lists: nothing left)."""
    return {
        "processes": [f"{p} {' '.join(cmdline(p))[:120]}" for p in our_processes(layout) if pid_alive(p)],
        "container processes": [str(p) for p in container_processes() if pid_alive(p)],
        "cgroups": [str(d) for d in kubepods_dirs()],
        "mounts": our_mounts(layout),
        "network namespaces": [str(n) for n in our_netns()],
        "interfaces": interfaces(),
        "files outside the state folder": [str(p) for p in outside_files(layout)],
    }


def clean(layout: Layout, *, keep_run_dir: bool = False) -> dict[str, list[str]]:
    """Remove everything of ours; return what could not be removed (empty lists: all gone).

    While a cluster of another state folder runs (:func:`foreign_cluster`), only the processes
    and the run folder of ``layout`` go: pods, network namespaces, ``kubepods`` cgroups and the
    interfaces are machine-wide and belong to that cluster (a test cleaning a temporary layout
    must not break the running node).
    """
    if foreign_cluster(layout):
        kill_pids(our_processes(layout), grace_s=5.0)
        if not keep_run_dir and layout.run.exists() and not our_mounts(layout):
            shutil.rmtree(layout.run, ignore_errors=True)
        layout.status_file.unlink(missing_ok=True)
        return {k: v for k, v in {"processes": [str(p) for p in our_processes(layout)]}.items() if v}
    # 1. processes: components and shims first, then whatever still runs in a pod cgroup
    kill_pids(our_processes(layout), grace_s=5.0)
    for _ in range(3):
        pids = container_processes()
        if not pids:
            break
        kill_pids(pids, grace_s=1.0)
    kill_pids(our_processes(layout), grace_s=1.0)
    # 2. network namespaces and mounts
    for ns in our_netns():
        subprocess.run(["umount", "-l", str(ns)], capture_output=True)
        ns.unlink(missing_ok=True)
    for mp in our_mounts(layout):
        subprocess.run(["umount", "-l", mp], capture_output=True)
    # 3. cgroups, interfaces, links outside
    remove_cgroups()
    for d in CGROUP_ROOT.glob("*/k8s.io"):  # containerd's own default parent (`ctr run`): only if empty
        _remove_empty_dirs(d)
    for name in interfaces():
        subprocess.run(["ip", "link", "del", name], capture_output=True)
    for p in outside_files(layout):
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
    _remove_empty_dirs(CONTAINERD_LINK.parent)
    with contextlib.suppress(OSError):
        NETNS_DIR.rmdir()  # only when empty (made by the pods' runtime)
    # 4. the run folder
    if not keep_run_dir and layout.run.exists() and not our_mounts(layout):
        shutil.rmtree(layout.run, ignore_errors=True)
    layout.status_file.unlink(missing_ok=True)
    return {k: v for k, v in inventory(layout).items() if v}
