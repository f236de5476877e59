"""Config files of containerd, the CNI bridge, the kubelet and Prometheus (all under ``run/``)."""

from __future__ import annotations

import json
from pathlib import Path

from .layout import NODE_IP, NODE_NAME, PAUSE_IMAGE, POD_BRIDGE, POD_SUBNET, Layout

CNI_BIN = Path("/usr/lib/cni")
SCRAPE_INTERVAL = "2s"


def containerd_config(layout: Layout) -> Path:
    """containerd 1.6 on this VM: no CAP_SYS_RESOURCE (restrict_oom_score_adj), no AppArmor,
    PID 1 is not systemd (cgroupfs), the sandbox image imported locally, state under ``run/``."""
    c = layout.run / "containerd"
    cri = 'plugins."io.containerd.grpc.v1.cri"'
    text = f"""version = 2
root = "{c / 'root'}"
state = "{c / 'state'}"
oom_score = 0
[grpc]
  address = "{layout.containerd_sock}"
[ttrpc]
  address = "{c / 'containerd.sock.ttrpc'}"
[debug]
  level = "warn"
[metrics]
  address = ""
[{cri}]
  sandbox_image = "{PAUSE_IMAGE}"
  restrict_oom_score_adj = true
  disable_apparmor = true
  enable_selinux = false
  max_container_log_line_size = 16384
  [{cri}.cni]
    bin_dir = "{CNI_BIN}"
    conf_dir = "{layout.run / 'cni' / 'net.d'}"
  [{cri}.containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
  [{cri}.containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
  [{cri}.containerd.runtimes.runc.options]
    SystemdCgroup = false
    Root = "{layout.run / 'runc'}"
"""
    path = c / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def cni_config(layout: Layout) -> Path:
    """bridge + host-local + loopback; no masquerading (no iptables, traffic stays on this machine)."""
    conf = {
        "cniVersion": "0.4.0",
        "name": "throttlelab",
        "plugins": [
            {"type": "bridge", "bridge": POD_BRIDGE, "isGateway": True, "ipMasq": False, "hairpinMode": True,
             "ipam": {"type": "host-local", "ranges": [[{"subnet": POD_SUBNET}]],
                      "dataDir": str(layout.run / "cni" / "ipam")}},
        ],
    }
    d = layout.run / "cni" / "net.d"
    d.mkdir(parents=True, exist_ok=True)
    path = d / "10-throttlelab.conflist"
    path.write_text(json.dumps(conf, indent=1))
    return path


def kubelet_config(layout: Layout) -> Path:
    """The KubeletConfiguration (JSON): see FIELD-NOTES for why each odd setting is there."""
    p = layout.ports
    cfg = {
        "apiVersion": "kubelet.config.k8s.io/v1beta1",
        "kind": "KubeletConfiguration",
        "address": NODE_IP,
        "port": p.kubelet,
        "readOnlyPort": 0,
        "healthzBindAddress": "127.0.0.1",
        "healthzPort": p.kubelet_healthz,
        "authentication": {
            "anonymous": {"enabled": False},
            "webhook": {"enabled": True, "cacheTTL": "10s"},
            "x509": {"clientCAFile": str(layout.pki / "ca.crt")},
        },
        "authorization": {"mode": "Webhook", "webhook": {"cacheAuthorizedTTL": "10s", "cacheUnauthorizedTTL": "5s"}},
        "cgroupDriver": "cgroupfs",
        "failCgroupV1": False,
        "failSwapOn": False,
        "makeIPTablesUtilChains": False,
        "imageGCHighThresholdPercent": 100,
        "imageGCLowThresholdPercent": 99,
        "evictionHard": {"memory.available": "100Mi", "nodefs.available": "1%", "imagefs.available": "1%"},
        "podLogsDir": str(layout.run / "pod-logs"),
        "resolvConf": "",
        "serializeImagePulls": False,
        "staticPodPath": "",
        "syncFrequency": "10s",
        "nodeStatusUpdateFrequency": "5s",
        "fileCheckFrequency": "20s",
        "containerRuntimeEndpoint": f"unix://{layout.containerd_sock}",
        "registerNode": True,
        "protectKernelDefaults": False,
        "maxPods": 30,
        "localStorageCapacityIsolation": True,
        "shutdownGracePeriod": "0s",
    }
    path = layout.run / "kubelet-config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cfg, indent=1))
    return path


def kubelet_argv(layout: Layout, config: Path) -> list[str]:
    return [
        str(layout.bins / "kubelet"), f"--config={config}", f"--kubeconfig={layout.run / 'node.kubeconfig'}",
        f"--root-dir={layout.kubelet_dir}", f"--cert-dir={layout.run / 'kubelet-pki'}",
        f"--hostname-override={NODE_NAME}", f"--node-ip={NODE_IP}", "--housekeeping-interval=1s",
        "--node-labels=throttlelab.io/node=local", "--v=1",
    ]


def _seconds(text: str) -> float:
    """``"30s"`` -> 30.0, ``"2m"`` -> 120.0."""
    return float(text[:-1]) * {"s": 1, "m": 60, "h": 3600}[text[-1]]


def prometheus_config(layout: Layout, interval: str = SCRAPE_INTERVAL, path: Path | None = None) -> Path:
    """Scrape the kubelet's cAdvisor and resource metrics every ``interval`` (self-signed: insecure); the cluster's
    own Prometheus every few seconds, a second one (a benchmark's) at the common 30 s."""
    token = layout.run / "prometheus.token"

    def job(name: str, path: str) -> dict:
        return {
            "job_name": name, "scheme": "https", "metrics_path": path,
            "scrape_interval": interval, "scrape_timeout": min(interval, "10s", key=_seconds),
            "authorization": {"type": "Bearer", "credentials_file": str(token)},
            "tls_config": {"insecure_skip_verify": True},
            "static_configs": [{"targets": [f"{NODE_IP}:{layout.ports.kubelet}"], "labels": {"node": NODE_NAME}}],
        }

    cfg = {"global": {"scrape_interval": interval, "evaluation_interval": "15s"},
           "scrape_configs": [job("kubelet-cadvisor", "/metrics/cadvisor"),
                              job("kubelet-resource", "/metrics/resource")]}
    path = path or layout.run / "prometheus" / "prometheus.yml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cfg, indent=1))
    return path
