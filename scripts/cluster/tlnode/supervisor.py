"""The process that owns the cluster: starts every component, watches them, stops them all.

Every component is its child with ``PR_SET_PDEATHSIG=SIGKILL`` and it is the
subreaper of the containerd shims, so nothing outlives it.  It stops everything
(pods, kubelet, containerd, shims, control plane, Prometheus, then cgroups,
mounts, interfaces) on SIGTERM/SIGINT/SIGHUP, when a component dies, and (until
``SIGUSR1`` detaches it) when its own parent dies.  Progress and the result go
to ``status.json``: ``{"state": "starting"|"ready"|"failed"|"stopping", "steps": [[name, seconds]], ...}``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from . import api as kapi
from . import configs, images, leftovers, pki
from .layout import (NAMESPACE, NODE_IFACE, NODE_IP, NODE_NAME, REPO, SERVICE_RANGE, Layout)
from .procs import PR_SET_PDEATHSIG, become_subreaper, prctl, spawn, stop, wait_until

#: sysctls the kubelet would set on the host: it reads these (read-only) copies instead.
KUBELET_SYSCTLS = {"vm/overcommit_memory": "1", "vm/panic_on_oom": "0", "kernel/panic": "10",
                   "kernel/panic_on_oops": "1", "kernel/keys/root_maxkeys": "1000000",
                   "kernel/keys/root_maxbytes": "25000000"}
RBAC = REPO / "deploy" / "rbac.yaml"


class Stop(Exception):
    """A signal asked us to stop."""


class Supervisor:
    def __init__(self, layout: Layout):
        self.layout = layout
        self.procs: dict[str, subprocess.Popen] = {}
        self.status: dict = {"state": "starting", "pid": os.getpid(), "steps": [], "detached": False}
        self.api: kapi.Api | None = None

    # -- status ----------------------------------------------------------
    def write_status(self, **kw) -> None:
        self.status.update(kw)
        f = self.layout.status_file
        tmp = f.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.status))
        tmp.replace(f)

    def step(self, name: str, fn) -> None:
        t0 = time.monotonic()
        fn()
        self.status["steps"].append([name, round(time.monotonic() - t0, 2)])
        self.write_status()

    def dead(self) -> str | None:
        for name, p in self.procs.items():
            if p.poll() is not None:
                return f"{name} exited with {p.returncode}: {self.layout.log_tail(name, 8)}"
        return None

    def start(self, name: str, argv: list[str], **kw) -> None:
        self.procs[name] = spawn(argv, self.layout.log(name), **kw)

    # -- steps -----------------------------------------------------------
    def network(self) -> None:
        ip = ["ip", "link", "add", NODE_IFACE, "type", "bridge"]
        for cmd in (ip, ["ip", "addr", "add", f"{NODE_IP}/32", "dev", NODE_IFACE], ["ip", "link", "set", NODE_IFACE, "up"]):
            res = subprocess.run(cmd, capture_output=True, text=True)
            if res.returncode != 0:
                raise RuntimeError(f"{' '.join(cmd)}: {res.stderr.strip()}")

    def certificates(self) -> None:
        pki.ensure_pki(self.layout)
        self.tokens = pki.new_tokens(self.layout)

    def etcd(self) -> None:
        lo, p = self.layout, self.layout.ports
        self.start("etcd", [
            str(lo.bins / "etcd"), "--name=default", f"--data-dir={lo.run / 'etcd'}",
            f"--listen-client-urls=http://127.0.0.1:{p.etcd}", f"--advertise-client-urls=http://127.0.0.1:{p.etcd}",
            f"--listen-peer-urls=http://127.0.0.1:{p.etcd_peer}",
            f"--initial-advertise-peer-urls=http://127.0.0.1:{p.etcd_peer}",
            f"--initial-cluster=default=http://127.0.0.1:{p.etcd_peer}",
            "--unsafe-no-fsync", "--log-level=warn", "--listen-metrics-urls="])
        wait_until(lambda: urllib.request.urlopen(f"http://127.0.0.1:{p.etcd}/health", timeout=1).status == 200,
                   30, "etcd", alive=self.dead)

    def apiserver(self) -> None:
        lo, p = self.layout, self.layout.ports
        sa_key = lo.pki / "service-account.key"
        self.start("kube-apiserver", [
            str(lo.bins / "kube-apiserver"), f"--etcd-servers=http://127.0.0.1:{p.etcd}",
            "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", f"--secure-port={p.apiserver}",
            f"--cert-dir={lo.apiserver_cert.parent}", f"--token-auth-file={lo.run / 'tokens.csv'}",
            "--authorization-mode=Node,RBAC", "--anonymous-auth=false",
            "--service-account-issuer=https://kubernetes.default.svc",
            f"--service-account-key-file={sa_key}", f"--service-account-signing-key-file={sa_key}",
            f"--service-cluster-ip-range={SERVICE_RANGE}", "--enable-priority-and-fairness=false",
            "--endpoint-reconciler-type=none", "--kubelet-preferred-address-types=InternalIP",
            f"--kubelet-client-certificate={lo.pki / 'apiserver-kubelet-client.crt'}",
            f"--kubelet-client-key={lo.pki / 'apiserver-kubelet-client.key'}", "--v=0"])
        wait_until(lambda: lo.apiserver_cert.exists(), 60, "kube-apiserver certificate", alive=self.dead)
        self.api = kapi.Api(lo.apiserver_url, self.tokens.admin, lo.apiserver_cert)
        wait_until(self.api.ready, 90, "kube-apiserver /readyz", alive=self.dead)
        pki.write_kubeconfig(lo.kubeconfig, lo.apiserver_url, lo.apiserver_cert, self.tokens.admin)
        pki.write_kubeconfig(lo.run / "node.kubeconfig", lo.apiserver_url, lo.apiserver_cert, self.tokens.node)

    def bootstrap(self) -> None:
        for path, body in kapi.bootstrap_objects(NAMESPACE) + kapi.rbac_manifest_objects(RBAC, NAMESPACE):
            self.api.create(path, body)

    def controllers(self) -> None:
        lo, p = self.layout, self.layout.ports
        kc = str(lo.kubeconfig)
        self.start("kube-controller-manager", [
            str(lo.bins / "kube-controller-manager"), f"--kubeconfig={kc}", "--leader-elect=false",
            "--bind-address=127.0.0.1", f"--secure-port={p.controller_manager}", "--use-service-account-credentials=false",
            f"--root-ca-file={lo.apiserver_cert}", f"--service-account-private-key-file={lo.pki / 'service-account.key'}",
            f"--service-cluster-ip-range={SERVICE_RANGE}", "--allocate-node-cidrs=false", "--node-monitor-period=2s",
            "--v=0"])
        self.start("kube-scheduler", [
            str(lo.bins / "kube-scheduler"), f"--kubeconfig={kc}", "--leader-elect=false",
            "--bind-address=127.0.0.1", f"--secure-port={p.scheduler}", "--v=0"])

    def containerd(self) -> None:
        lo = self.layout
        cfg = configs.containerd_config(lo)
        configs.cni_config(lo)
        (lo.run / "runc").mkdir(parents=True, exist_ok=True)
        self.start("containerd", ["containerd", f"--config={cfg}"])
        wait_until(lo.containerd_sock.exists, 30, "containerd socket", alive=self.dead)
        link = leftovers.CONTAINERD_LINK  # cAdvisor looks for the runtime here
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or not link.exists():
            link.unlink(missing_ok=True)
            link.symlink_to(lo.containerd_sock)

    def images(self) -> None:
        images.import_images(self.layout)

    def kubelet(self) -> None:
        lo = self.layout
        cfg = configs.kubelet_config(lo)
        kd = lo.kubelet_dir
        kd.mkdir(parents=True, exist_ok=True)
        # a shared mount: volumes the kubelet mounts in its own namespace reach containerd's
        for cmd in (["mount", "--bind", str(kd), str(kd)], ["mount", "--make-shared", str(kd)]):
            subprocess.run(cmd, check=True, capture_output=True)
        sysctl_dir = lo.run / "sysctl"
        sysctl_dir.mkdir(exist_ok=True)
        binds = []
        for key, value in KUBELET_SYSCTLS.items():
            if Path("/proc/sys", key).exists():
                f = sysctl_dir / key.replace("/", ".")
                f.write_text(value + "\n")
                binds.append(f'mount --bind "{f}" /proc/sys/{key} && mount -o remount,bind,ro /proc/sys/{key}')
        script = "set -e; " + "; ".join(binds) + '; exec "$@"'
        self.start("kubelet", ["unshare", "--mount", "--propagation", "unchanged", "/bin/sh", "-c", script,
                               "kubelet", *configs.kubelet_argv(lo, cfg)])
        wait_until(lambda: self.api.node_ready(NODE_NAME), 120, f"node {NODE_NAME} Ready", alive=self.dead,
                   interval_s=0.3)

    def accounts(self) -> None:
        wait_until(lambda: self.api.service_account_ready(NAMESPACE), 60, f"service account {NAMESPACE}/default",
                   alive=self.dead)
        token = self.api.token_for(NAMESPACE, "throttlelab-runner")
        pki.write_kubeconfig(self.layout.runner_kubeconfig, self.layout.apiserver_url, self.layout.apiserver_cert,
                             token, NAMESPACE)

    def prometheus(self) -> None:
        lo = self.layout
        cfg = configs.prometheus_config(lo)
        self.start("prometheus", [
            "prometheus", f"--config.file={cfg}", f"--storage.tsdb.path={lo.run / 'prometheus' / 'data'}",
            f"--web.listen-address=127.0.0.1:{lo.ports.prometheus}", "--storage.tsdb.retention.time=7d",
            "--log.level=warn"])
        url = lo.prometheus_url

        def targets_up() -> bool:
            with urllib.request.urlopen(f"{url}/api/v1/query?query=up", timeout=2) as r:
                res = json.load(r)["data"]["result"]
            return len(res) >= 2 and all(x["value"][1] == "1" for x in res)

        wait_until(targets_up, 60, "Prometheus scraping the kubelet", alive=self.dead, interval_s=0.5)

    # -- lifecycle -------------------------------------------------------
    def run(self) -> int:
        steps = [("network", self.network), ("certificates", self.certificates), ("etcd", self.etcd),
                 ("kube-apiserver", self.apiserver), ("rbac", self.bootstrap),
                 ("controller-manager+scheduler", self.controllers), ("containerd", self.containerd),
                 ("images", self.images), ("kubelet (node Ready)", self.kubelet),
                 ("service accounts", self.accounts), ("prometheus", self.prometheus)]
        code = 0
        try:
            for name, fn in steps:
                self.step(name, fn)
            self.write_status(state="ready", prometheus=self.layout.prometheus_url,
                              kubeconfig=str(self.layout.kubeconfig), ready_at=time.time())
            while True:
                msg = self.dead()
                if msg:
                    self.write_status(state="failed", error=msg)
                    code = 1
                    break
                time.sleep(0.5)
        except Stop:
            pass
        except Exception as exc:  # noqa: BLE001 - one line to the client, then clean up
            self.write_status(state="failed", error=f"{type(exc).__name__}: {exc}")
            code = 1
        finally:
            self.teardown()
        return code

    def teardown(self) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        failed = self.status.get("state") == "failed"
        self.status["state"] = "stopping"
        self.write_status()
        kubelet = self.procs.get("kubelet")
        if self.api is not None and kubelet is not None and kubelet.poll() is None:
            try:  # let the kubelet stop the pods (sandboxes, network namespaces) itself
                if self.api.delete_all_pods():
                    wait_until(lambda: not leftovers.container_processes(), 15, "pods stopped")
            except Exception:  # noqa: BLE001 - cleaned below anyway
                pass
        for name in ("prometheus", "kubelet", "containerd", "kube-scheduler", "kube-controller-manager",
                     "kube-apiserver", "etcd"):
            if name in self.procs:
                stop(self.procs[name], timeout_s=5)
        left = leftovers.clean(self.layout, keep_run_dir=failed)
        if failed or left:
            # keep the logs of a failed start; say what could not be removed
            self.layout.status_file.parent.mkdir(parents=True, exist_ok=True)
            self.write_status(state="failed" if failed else "stopped", leftovers=left)


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--state", required=True)
    args = ap.parse_args(argv)
    os.environ["THROTTLELAB_CLUSTER_DIR"] = args.state
    layout = Layout.default()
    become_subreaper()

    def on_stop(signum, frame):
        raise Stop()

    def on_detach(signum, frame):
        prctl(PR_SET_PDEATHSIG, 0)
        sup.write_status(detached=True)

    sup = Supervisor(layout)
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, on_stop)
    signal.signal(signal.SIGUSR1, on_detach)
    return sup.run()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(main())
