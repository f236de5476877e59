"""Certificates and tokens of the cluster (openssl; kept across runs under ``keep/pki``).

* a CA the kubelet trusts for client certificates; the service-account signing key;
* the API server's client certificate for the kubelet (logs, exec): ``O=system:masters``;
* static bearer tokens: the admin (``system:masters``), the node (``system:node:<name>`` in
  ``system:nodes``, so the Node authorizer applies) and Prometheus (``nodes/metrics`` only).
"""

from __future__ import annotations

import secrets
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .layout import NODE_NAME, Layout


@dataclass(frozen=True)
class Tokens:
    admin: str
    node: str
    prometheus: str


def _openssl(*args: str) -> None:
    out = subprocess.run(["openssl", *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"openssl {args[0]} failed: {out.stderr.strip().splitlines()[-1:]}")


def ensure_pki(layout: Layout) -> None:
    """Create the CA and the API server's kubelet-client certificate once."""
    pki = layout.pki
    pki.mkdir(parents=True, exist_ok=True)
    ca_key, ca_crt = pki / "ca.key", pki / "ca.crt"
    if not (ca_key.exists() and ca_crt.exists()):
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out", str(ca_crt),
                 "-days", "3650", "-subj", "/CN=throttlelab-node-ca")
    key, crt = pki / "apiserver-kubelet-client.key", pki / "apiserver-kubelet-client.crt"
    if not (key.exists() and crt.exists()):
        csr = pki / "apiserver-kubelet-client.csr"
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr),
                 "-subj", "/O=system:masters/CN=kube-apiserver-kubelet-client")
        _openssl("x509", "-req", "-in", str(csr), "-CA", str(ca_crt), "-CAkey", str(ca_key), "-CAcreateserial",
                 "-out", str(crt), "-days", "3650")
        csr.unlink()
    sa = pki / "service-account.key"
    if not sa.exists():
        _openssl("genrsa", "-out", str(sa), "2048")
    for p in pki.iterdir():
        p.chmod(0o600)


def new_tokens(layout: Layout) -> Tokens:
    """Fresh tokens for this run, written to the API server's token file."""
    t = Tokens(admin=secrets.token_hex(16), node=secrets.token_hex(16), prometheus=secrets.token_hex(16))
    f = layout.run / "tokens.csv"
    f.write_text(f'{t.admin},admin,admin,"system:masters"\n'
                 f'{t.node},system:node:{NODE_NAME},node,"system:nodes"\n'
                 f"{t.prometheus},throttlelab-prometheus,prometheus\n")
    f.chmod(0o600)
    (layout.run / "prometheus.token").write_text(t.prometheus)
    (layout.run / "prometheus.token").chmod(0o600)
    return t


def write_kubeconfig(path: Path, server: str, ca_file: Path, token: str, namespace: str | None = None) -> None:
    """A one-context kubeconfig with a bearer token (JSON is YAML)."""
    import json

    ctx = {"cluster": "throttlelab-node", "user": "user"}
    if namespace:
        ctx["namespace"] = namespace
    doc = {
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "throttlelab-node", "cluster": {"server": server, "certificate-authority": str(ca_file)}}],
        "users": [{"name": "user", "user": {"token": token}}],
        "contexts": [{"name": "throttlelab-node", "context": ctx}],
        "current-context": "throttlelab-node",
    }
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1))
    tmp.chmod(0o600)
    tmp.replace(path)
