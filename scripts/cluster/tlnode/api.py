"""The few Kubernetes API calls the set-up makes (urllib, bearer token; no client library needed)."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any


class Api:
    """A bearer-token connection to the API server (its self-signed certificate as trust anchor)."""

    def __init__(self, server: str, token: str, ca_file: Path | None = None):
        self.server, self.token = server, token
        self.ctx = ssl.create_default_context()
        if ca_file and ca_file.exists():
            self.ctx.load_verify_locations(cafile=str(ca_file))
            self.ctx.check_hostname = False
        else:
            self.ctx.check_hostname = False
            self.ctx.verify_mode = ssl.CERT_NONE

    def call(self, method: str, path: str, body: Any = None, timeout_s: float = 10.0) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.server + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json",
            "Accept": "application/json"})
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=timeout_s) as resp:
                raw = resp.read()
                return resp.status, _json(raw)
        except urllib.error.HTTPError as exc:
            return exc.code, _json(exc.read())

    def get(self, path: str) -> Any:
        code, doc = self.call("GET", path)
        if code != 200:
            raise RuntimeError(f"GET {path}: {code} {_message(doc)}")
        return doc

    def create(self, path: str, body: dict) -> None:
        """POST ``body``; an object that exists already is fine."""
        code, doc = self.call("POST", path, body)
        if code not in (200, 201, 202, 409):
            raise RuntimeError(f"POST {path} ({body.get('kind')} {body['metadata'].get('name')}): "
                               f"{code} {_message(doc)}")

    def ready(self) -> bool:
        code, _ = self.call("GET", "/readyz", timeout_s=2)
        return code == 200

    def node_ready(self, name: str) -> bool:
        code, doc = self.call("GET", f"/api/v1/nodes/{name}", timeout_s=3)
        if code != 200:
            return False
        conds = doc.get("status", {}).get("conditions", [])
        taints = doc.get("spec", {}).get("taints") or []
        ready = any(c["type"] == "Ready" and c["status"] == "True" for c in conds)
        return ready and not any(t.get("key") == "node.kubernetes.io/not-ready" for t in taints)

    def service_account_ready(self, namespace: str, name: str = "default") -> bool:
        code, _ = self.call("GET", f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}", timeout_s=3)
        return code == 200

    def token_for(self, namespace: str, service_account: str, seconds: int = 7 * 86400) -> str:
        code, doc = self.call("POST", f"/api/v1/namespaces/{namespace}/serviceaccounts/{service_account}/token", {
            "apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
            "spec": {"audiences": ["https://kubernetes.default.svc"], "expirationSeconds": seconds}})
        if code not in (200, 201):
            raise RuntimeError(f"token for {namespace}/{service_account}: {code} {_message(doc)}")
        return doc["status"]["token"]

    def delete_all_pods(self) -> int:
        """Delete every pod at once (grace 0); return how many there were."""
        pods = self.get("/api/v1/pods").get("items", [])
        for p in pods:
            m = p["metadata"]
            self.call("DELETE", f"/api/v1/namespaces/{m['namespace']}/pods/{m['name']}?gracePeriodSeconds=0")
        return len(pods)


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else {}
    except ValueError:
        return {"message": raw[:300].decode(errors="replace")}


def _message(doc: Any) -> str:
    return doc.get("message", "") if isinstance(doc, dict) else str(doc)[:300]


def bootstrap_objects(namespace: str) -> list[tuple[str, dict]]:
    """RBAC the node needs: the API server's kubelet client, Prometheus reading node metrics,
    and the sweep namespace."""
    crb = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
    cr = "/apis/rbac.authorization.k8s.io/v1/clusterroles"
    meta = {"labels": {"app.kubernetes.io/name": "throttlelab"}}
    return [
        (crb, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": "throttlelab-apiserver-kubelet", **meta},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                           "name": "system:kubelet-api-admin"},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User",
                             "name": "kube-apiserver-kubelet-client"}]}),
        (cr, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
              "metadata": {"name": "throttlelab-prometheus", **meta},
              "rules": [{"apiGroups": [""], "resources": ["nodes/metrics"], "verbs": ["get"]}]}),
        (crb, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": "throttlelab-prometheus", **meta},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                           "name": "throttlelab-prometheus"},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User",
                             "name": "throttlelab-prometheus"}]}),
        ("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace, **meta}}),
    ]


def rbac_manifest_objects(manifest: Path, namespace: str) -> list[tuple[str, dict]]:
    """deploy/rbac.yaml's ServiceAccount, Role and RoleBinding, moved to ``namespace``."""
    import yaml

    paths = {"ServiceAccount": f"/api/v1/namespaces/{namespace}/serviceaccounts",
             "Role": f"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles",
             "RoleBinding": f"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/rolebindings"}
    out = []
    for doc in yaml.safe_load_all(manifest.read_text()):
        if not doc:
            continue
        doc["metadata"]["namespace"] = namespace
        for s in doc.get("subjects", []):
            s["namespace"] = namespace
        out.append((paths[doc["kind"]], doc))
    return out
