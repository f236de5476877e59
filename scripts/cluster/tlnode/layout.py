"""Where the one-node cluster keeps everything: one state folder outside the repo, ports, addresses."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
BUILD_SCRIPT = REPO / "scripts" / "build_control_plane.sh"

NODE_NAME = "throttlelab-node"
#: The node's own interface and address (TEST-NET-1, RFC 5737: never routed anywhere).
NODE_IFACE = "tl-node0"
NODE_IP = "192.0.2.1"
#: The pods' bridge and subnet (RFC 2544 benchmarking range; bridge made by the CNI plugin).
POD_BRIDGE = "tl-cni0"
POD_SUBNET = "198.18.0.0/24"
SERVICE_RANGE = "10.96.0.0/24"
#: Images built locally and imported into containerd (no registry).
PAUSE_IMAGE = "throttlelab.local/pause:1"
BUSYBOX_IMAGE = "throttlelab.local/busybox:1"
NAMESPACE = "throttlelab"


def cache_root() -> Path:
    """``$THROTTLELAB_CACHE`` or ``~/.cache/throttlelab``."""
    return Path(os.environ.get("THROTTLELAB_CACHE") or Path.home() / ".cache" / "throttlelab")


@dataclass(frozen=True)
class Ports:
    """TCP ports on 127.0.0.1 (the kubelet's API port is on the node address)."""

    etcd: int
    etcd_peer: int
    apiserver: int
    prometheus: int
    scheduler: int
    controller_manager: int
    kubelet_healthz: int
    kubelet: int = 10250

    @classmethod
    def from_base(cls, base: int) -> Ports:
        return cls(etcd=base, etcd_peer=base + 1, apiserver=base + 2, prometheus=base + 3,
                   scheduler=base + 4, controller_manager=base + 5, kubelet_healthz=base + 6)

    def named(self) -> dict[str, int]:
        return {k: v for k, v in self.__dict__.items() if k != "kubelet"}


@dataclass(frozen=True)
class Layout:
    """Every path and port of the cluster.

    ``state`` holds it all: ``keep/`` survives ``down`` (certificates, image
    archives), ``run/`` is made afresh by each ``up`` and removed by ``down``.
    """

    state: Path
    bins: Path
    ports: Ports

    @classmethod
    def default(cls) -> Layout:
        state = Path(os.environ.get("THROTTLELAB_CLUSTER_DIR") or cache_root() / "cluster")
        base = int(os.environ.get("THROTTLELAB_CLUSTER_PORT_BASE", "16440"))
        return cls(state=state, bins=control_plane_bins(), ports=Ports.from_base(base))

    # persistent
    @property
    def keep(self) -> Path:
        return self.state / "keep"

    @property
    def pki(self) -> Path:
        return self.keep / "pki"

    @property
    def images(self) -> Path:
        return self.keep / "images"

    # per run
    @property
    def run(self) -> Path:
        return self.state / "run"

    @property
    def logs(self) -> Path:
        return self.run / "logs"

    @property
    def status_file(self) -> Path:
        return self.state / "status.json"

    @property
    def lock_file(self) -> Path:
        return self.state / "lock"

    @property
    def kubeconfig(self) -> Path:
        """The admin kubeconfig (``system:masters``); its path stays the same across runs."""
        return self.state / "admin.kubeconfig"

    @property
    def runner_kubeconfig(self) -> Path:
        """A kubeconfig of the ``throttlelab-runner`` service account (deploy/rbac.yaml's rights only)."""
        return self.state / "runner.kubeconfig"

    @property
    def containerd_sock(self) -> Path:
        return self.run / "containerd" / "containerd.sock"

    @property
    def kubelet_dir(self) -> Path:
        return self.run / "kubelet"

    @property
    def apiserver_url(self) -> str:
        return f"https://127.0.0.1:{self.ports.apiserver}"

    @property
    def prometheus_url(self) -> str:
        return f"http://127.0.0.1:{self.ports.prometheus}"

    @property
    def apiserver_cert(self) -> Path:
        return self.run / "apiserver-certs" / "apiserver.crt"

    def log(self, name: str) -> Path:
        return self.logs / f"{name}.log"

    def log_tail(self, name: str, lines: int = 15) -> str:
        p = self.log(name)
        if not p.exists():
            return ""
        return "\n".join(p.read_text(errors="replace").splitlines()[-lines:])


def control_plane_bins() -> Path:
    """The bin folder of scripts/build_control_plane.sh: ``<cache>/control-plane/<K8S_VERSION>/bin``
    (K8S_VERSION from scripts/control_plane/versions.env, as the script reads it)."""
    versions = REPO / "scripts" / "control_plane" / "versions.env"
    env = dict(line.split("=", 1) for line in versions.read_text().splitlines()
               if "=" in line and not line.lstrip().startswith("#"))
    return cache_root() / "control-plane" / env["K8S_VERSION"].strip() / "bin"
