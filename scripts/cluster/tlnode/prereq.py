"""What the node needs, checked before anything starts: one actionable line per problem."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path

from .configs import CNI_BIN
from .images import BUSYBOX
from .layout import NODE_IP, Layout

#: command -> Debian package that provides it
COMMANDS = {
    "containerd": "containerd", "containerd-shim-runc-v2": "containerd", "ctr": "containerd", "runc": "runc",
    "prometheus": "prometheus", "openssl": "openssl", "unshare": "util-linux", "mount": "mount",
    "ip": "iproute2",
}
CNI_PLUGINS = ("bridge", "host-local", "loopback")
#: cgroup v1 controllers the kubelet needs (cgroupfs driver)
CONTROLLERS = ("cpu", "cpuacct", "memory", "pids", "cpuset")
INSTALL_HINT = "run `make node-tools` (apt-get install containerd runc containernetworking-plugins prometheus busybox-static)"


def _port_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def _mounted_controllers() -> set[str]:
    found: set[str] = set()
    for line in Path("/proc/mounts").read_text().splitlines():
        parts = line.split()
        if len(parts) > 3 and parts[2] == "cgroup":
            found.update(o for o in parts[3].split(",") if o in CONTROLLERS)
    return found


def problems(layout: Layout, *, check_ports: bool = True) -> list[str]:
    """Every missing prerequisite, one line each saying what and how to fix it (empty: all there)."""
    out: list[str] = []
    if os.geteuid() != 0:
        out.append("the node needs root (cgroups, mounts, network interfaces): run `make cluster-up` as root")
    for cmd, pkg in COMMANDS.items():
        if shutil.which(cmd) is None:
            out.append(f"`{cmd}` not found (Debian package {pkg}): {INSTALL_HINT}")
    for plugin in CNI_PLUGINS:
        if not (CNI_BIN / plugin).is_file():
            out.append(f"CNI plugin {CNI_BIN / plugin} not found (Debian package containernetworking-plugins): "
                       f"{INSTALL_HINT}")
    if not BUSYBOX.is_file():
        out.append(f"{BUSYBOX} not found (Debian package busybox-static): {INSTALL_HINT}")
    for c in ("etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager", "kubelet"):
        if not (layout.bins / c).is_file():
            out.append(f"{layout.bins / c} not built: run `make control-plane` (scripts/build_control_plane.sh)")
    missing = [c for c in CONTROLLERS if c not in _mounted_controllers()]
    if missing and not Path("/sys/fs/cgroup/cgroup.controllers").exists():
        out.append(f"cgroup v1 controller(s) {', '.join(missing)} not mounted under /sys/fs/cgroup: "
                   "mount them (e.g. `mount -t cgroup -o cpu,cpuacct cgroup /sys/fs/cgroup/cpu`)")
    for name in ("cpu", "cpuacct", "memory", "pids"):
        d = Path("/sys/fs/cgroup") / name
        if d.is_dir() and not os.access(d, os.W_OK):
            out.append(f"cgroup {d} is not writable: the kubelet must create kubepods there (run as root, "
                       "cgroup mounted rw)")
    if check_ports:
        for name, port in layout.ports.named().items():
            if not _port_free(port):
                out.append(f"port {port} ({name}) on 127.0.0.1 is in use: stop what holds it (`ss -ltnp "
                           f"'sport = :{port}'`) or set THROTTLELAB_CLUSTER_PORT_BASE to another base port")
    if shutil.which("ip") and f" {NODE_IP}/" in subprocess.run(["ip", "-4", "-o", "addr", "show"], capture_output=True,
                                                              text=True).stdout:
        out.append(f"{NODE_IP} is already configured on an interface not made by the cluster: remove it "
                   f"(`ip addr del {NODE_IP}/32 dev <interface>`)")
    return out
