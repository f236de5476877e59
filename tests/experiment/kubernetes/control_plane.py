"""A real Kubernetes control plane on loopback for the tests.

etcd, kube-apiserver (static-token auth + RBAC, service-account tokens),
kube-scheduler and kwok (fake nodes: pods become Running and Succeeded by its
stages, no kubelet, no logs), from the build of ``scripts/build_control_plane.sh``.
Free ports, a temporary folder, everything stopped at the end.  Every component
gets SIGKILL when the test process dies (``PR_SET_PDEATHSIG``), so a killed
pytest leaves nothing running; folders (and any process) of an earlier run
whose owner is dead are removed at the next start (:func:`remove_stale_runs`).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from throttlelab.experiment.sweeps.run_store import pid_alive

REPO = Path(__file__).resolve().parents[3]
BUILD_SCRIPT = REPO / "scripts" / "build_control_plane.sh"
STAGES = ("node-initialize", "node-heartbeat", "pod-ready", "pod-complete", "pod-delete")
COMPONENTS = ("etcd", "kube-apiserver", "kube-scheduler", "kwok")
FAKE_NODE_ANNOTATION = "kwok.x-k8s.io/node"
#: Test-only stages (kwok's pod-complete completes Job pods only).
EXTRA_STAGES = sorted((Path(__file__).parent / "kwok_stages").glob("*.yaml"))


def bin_dir() -> Path:
    """Where the build script puts the binaries (it says so itself)."""
    out = subprocess.run(["bash", str(BUILD_SCRIPT), "--print-bin-dir"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def built(bins: Path) -> bool:
    """All binaries, stage configs and the service-account key are there."""
    root = bins.parent
    return (all((bins / c).is_file() for c in COMPONENTS)
            and all((root / "kwok-stages" / f"{s}.yaml").is_file() for s in STAGES)
            and (root / "service-account.key").is_file())


def ensure_built(budget_s: float = 420.0) -> tuple[Path | None, str]:
    """Run the (idempotent) build script; return the bin dir, or ``None`` and why not.

    ``make test`` builds first (``make control-plane``), so this is instant there;
    a bare ``pytest`` on a cold cache builds here, within ``budget_s`` (under the
    test timeout): a build cut short resumes from the Go cache next time.
    """
    bins = bin_dir()
    proc = subprocess.Popen(["bash", str(BUILD_SCRIPT)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=budget_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.communicate()
        return None, (f"the control plane is not built yet and building it takes longer than {budget_s:g} s: "
                      "run `make control-plane` (or `make test`) first")
    if built(bins):
        return bins, ""
    tail = "\n".join(out.strip().splitlines()[-5:])
    return None, f"control plane not built and {BUILD_SCRIPT.name} failed (exit {proc.returncode}): {tail}"


WORKDIR_PREFIX = "throttlelab-kube-"
_PR_SET_PDEATHSIG = 1


def _die_with_parent():
    """A ``preexec_fn``: SIGKILL the child when the test process (the thread that started it) ends."""
    parent = os.getpid()
    libc = ctypes.CDLL(None, use_errno=True)

    def setup() -> None:
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl
            os.kill(os.getpid(), signal.SIGKILL)

    return setup



def remove_stale_runs(tmp: Path | None = None) -> list[str]:
    """Kill the processes of earlier control planes whose test process is gone; remove their folders.

    Each folder records its owner's pid (``owner.pid``); a folder without a live
    owner is stale.  Returns the folders removed.
    """
    tmp = Path(tmp or tempfile.gettempdir())
    removed = []
    for d in tmp.glob(f"{WORKDIR_PREFIX}*"):
        try:
            owner = int((d / "owner.pid").read_text())
        except (OSError, ValueError):
            owner = 0
        if owner and pid_alive(owner):
            continue
        key = str(d)
        for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
            try:
                args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if key in args and pid != os.getpid():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        shutil.rmtree(d, ignore_errors=True)
        removed.append(key)
    return removed


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class ControlPlane:
    """A running control plane.

    Attributes
    ----------
    server
        ``https://127.0.0.1:<port>``.
    kubeconfig
        Admin kubeconfig (static token, group ``system:masters``).
    ca_file
        The API server's self-signed certificate (trust anchor for clients).
    admin_token
        The admin's bearer token.
    workdir
        Temporary folder holding data, logs and configs.
    """

    server: str
    kubeconfig: Path
    ca_file: Path
    admin_token: str
    workdir: Path
    procs: dict[str, subprocess.Popen] = field(default_factory=dict)

    def kubeconfig_for_token(self, token: str, path: Path, namespace: str | None = None) -> Path:
        """Write a kubeconfig that authenticates with ``token``; return its path."""
        write_kubeconfig(path, self.server, self.ca_file, token, namespace)
        return path

    def log(self, component: str) -> str:
        """The component's log so far (for failure messages)."""
        p = self.workdir / f"{component}.log"
        return p.read_text(errors="replace") if p.exists() else ""

    def stop(self) -> None:
        """Stop every component (newest first) and remove the temporary folder."""
        for name, proc in reversed(list(self.procs.items())):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 3  # data is temporary: no need for a graceful etcd stop
        for proc in self.procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=5)
        shutil.rmtree(self.workdir, ignore_errors=True)


def write_kubeconfig(path: Path, server: str, ca_file: Path, token: str, namespace: str | None = None) -> None:
    """A one-context kubeconfig with a bearer token."""
    import yaml

    ctx = {"cluster": "test", "user": "user"}
    if namespace:
        ctx["namespace"] = namespace
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "test", "cluster": {"server": server, "certificate-authority": str(ca_file)}}],
        "users": [{"name": "user", "user": {"token": token}}],
        "contexts": [{"name": "test", "context": ctx}],
        "current-context": "test",
    }
    path.write_text(yaml.safe_dump(doc))
    path.chmod(0o600)


def _start(cp: ControlPlane, name: str, argv: list[str]) -> None:
    logf = open(cp.workdir / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
    cp.procs[name] = subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                      start_new_session=True, preexec_fn=_die_with_parent())
    logf.close()


def _wait_ready(cp: ControlPlane, timeout_s: float = 60.0) -> None:
    ctx = ssl.create_default_context(cafile=None)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    req = urllib.request.Request(cp.server + "/readyz", headers={"Authorization": f"Bearer {cp.admin_token}"})
    deadline = time.monotonic() + timeout_s
    last = ""
    while time.monotonic() < deadline:
        for name, proc in cp.procs.items():
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited with {proc.returncode}:\n{cp.log(name)[-3000:]}")
        try:
            with urllib.request.urlopen(req, context=ctx, timeout=2) as resp:
                if resp.status == 200 and cp.ca_file.exists():
                    return
        except Exception as exc:  # noqa: BLE001 - not up yet
            last = str(exc)
        time.sleep(0.1)
    raise RuntimeError(f"kube-apiserver not ready after {timeout_s} s ({last}):\n{cp.log('kube-apiserver')[-3000:]}")


def start_control_plane(bins: Path) -> ControlPlane:
    """Start etcd, kube-apiserver, kube-scheduler and kwok on loopback."""
    root = bins.parent
    remove_stale_runs()
    workdir = Path(tempfile.mkdtemp(prefix=WORKDIR_PREFIX))
    (workdir / "owner.pid").write_text(str(os.getpid()))
    etcd_client, etcd_peer, api_port = free_port(), free_port(), free_port()
    token = os.urandom(16).hex()
    (workdir / "tokens.csv").write_text(f'{token},admin,admin,"system:masters"\n')
    cert_dir = workdir / "certs"
    cp = ControlPlane(server=f"https://127.0.0.1:{api_port}", kubeconfig=workdir / "admin.kubeconfig",
                      ca_file=cert_dir / "apiserver.crt", admin_token=token, workdir=workdir)
    try:
        _start(cp, "etcd", [
            str(bins / "etcd"), "--name=default", f"--data-dir={workdir / 'etcd'}",
            f"--listen-client-urls=http://127.0.0.1:{etcd_client}",
            f"--advertise-client-urls=http://127.0.0.1:{etcd_client}",
            f"--listen-peer-urls=http://127.0.0.1:{etcd_peer}",
            f"--initial-advertise-peer-urls=http://127.0.0.1:{etcd_peer}",
            f"--initial-cluster=default=http://127.0.0.1:{etcd_peer}",
            "--unsafe-no-fsync", "--log-level=warn", "--listen-metrics-urls=",
        ])
        sa_key = root / "service-account.key"
        _start(cp, "kube-apiserver", [
            str(bins / "kube-apiserver"), f"--etcd-servers=http://127.0.0.1:{etcd_client}",
            "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", f"--secure-port={api_port}",
            f"--cert-dir={cert_dir}", f"--token-auth-file={workdir / 'tokens.csv'}",
            "--authorization-mode=RBAC", "--anonymous-auth=false",
            "--service-account-issuer=https://kubernetes.default.svc",
            f"--service-account-key-file={sa_key}", f"--service-account-signing-key-file={sa_key}",
            "--service-cluster-ip-range=10.96.0.0/24", "--enable-priority-and-fairness=false",
            "--endpoint-reconciler-type=none", "--watch-cache=false", "--v=0",
        ])
        _wait_ready(cp)
        write_kubeconfig(cp.kubeconfig, cp.server, cp.ca_file, token)
        _start(cp, "kube-scheduler", [
            str(bins / "kube-scheduler"), f"--kubeconfig={cp.kubeconfig}", "--leader-elect=false",
            "--bind-address=127.0.0.1", f"--secure-port={free_port()}", "--v=0",
        ])
        stages = [f"--config={root / 'kwok-stages' / f'{s}.yaml'}" for s in STAGES]
        stages += [f"--config={p}" for p in EXTRA_STAGES]
        _start(cp, "kwok", [
            str(bins / "kwok"), f"--kubeconfig={cp.kubeconfig}", "--manage-all-nodes=false",
            f"--manage-nodes-with-annotation-selector={FAKE_NODE_ANNOTATION}=fake",
            "--server-address=", *stages,
        ])
        time.sleep(0.2)
        for name in ("kube-scheduler", "kwok"):
            if cp.procs[name].poll() is not None:
                raise RuntimeError(f"{name} exited:\n{cp.log(name)[-3000:]}")
    except BaseException:
        cp.stop()
        raise
    return cp


def fake_node(name: str, cpu: str = "2", memory: str = "8Gi", labels: dict[str, str] | None = None) -> dict:
    """A Node that kwok manages (it marks it Ready and runs its pods by stages)."""
    capacity = {"cpu": cpu, "memory": memory, "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "annotations": {FAKE_NODE_ANNOTATION: "fake"},
            "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "type": "kwok",
                       **(labels or {})},
        },
        "status": {"capacity": capacity, "allocatable": capacity},
    }
