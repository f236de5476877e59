"""Fixtures: a real control plane (etcd, kube-apiserver, kube-scheduler, kwok) on loopback,
and (``node`` tests) the real one-node cluster of ``scripts/cluster``.

The session fixture builds it with ``scripts/build_control_plane.sh`` if needed
(idempotent; minutes on a cold cache) and skips only if it is absent AND cannot
be built.  Two kwok fake nodes with 2 CPUs each; a fresh namespace per test.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
import yaml

from .control_plane import ControlPlane, ensure_built, fake_node, start_control_plane

NODES = ("kwok-node-0", "kwok-node-1")
NODE_CPUS = "2"
RBAC = Path(__file__).resolve().parents[3] / "deploy" / "rbac.yaml"


@pytest.fixture(scope="session")
def control_plane():
    """The running control plane with two Ready fake nodes."""
    bins, why = ensure_built()
    if bins is None:
        pytest.skip(why)
    cp = start_control_plane(bins)
    try:
        core = admin_core(cp)
        for name in NODES:
            core.create_node(fake_node(name, cpu=NODE_CPUS))
            # The TaintNodesByCondition admission adds node.kubernetes.io/not-ready at
            # creation; the node lifecycle controller (not run here) would lift it.
            core.patch_node(name, {"spec": {"taints": None}})
        deadline = time.monotonic() + 30
        while not all(_ready(core.read_node(n)) for n in NODES):
            if time.monotonic() > deadline:
                raise RuntimeError(f"fake nodes not Ready:\n{cp.log('kwok')[-3000:]}")
            time.sleep(0.1)
        yield cp
    finally:
        cp.stop()


def _ready(node) -> bool:
    return any(c.type == "Ready" and c.status == "True" for c in (node.status.conditions or []))


def admin_api(cp: ControlPlane):
    """An ApiClient authenticated as the admin (static token)."""
    from kubernetes import config

    return config.new_client_from_config(config_file=str(cp.kubeconfig))


def admin_core(cp: ControlPlane):
    """CoreV1Api as the admin."""
    from kubernetes import client

    return client.CoreV1Api(admin_api(cp))


@pytest.fixture
def admin(control_plane):
    """CoreV1Api as the admin."""
    core = admin_core(control_plane)
    yield core
    core.api_client.close()


@pytest.fixture
def namespace(control_plane, admin):
    """A fresh namespace with its ``default`` service account (no controller-manager
    runs here to make it)."""
    name = f"tl-{uuid.uuid4().hex[:8]}"
    admin.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    admin.create_namespaced_service_account(name, {"metadata": {"name": "default"}})
    return name


def apply_rbac(cp: ControlPlane, namespace: str) -> None:
    """Create deploy/rbac.yaml's objects in ``namespace`` (as the admin)."""
    from kubernetes import client

    api = admin_api(cp)
    core, rbac = client.CoreV1Api(api), client.RbacAuthorizationV1Api(api)
    for doc in yaml.safe_load_all(RBAC.read_text()):
        doc["metadata"]["namespace"] = namespace
        for s in doc.get("subjects", []):
            s["namespace"] = namespace
        kind = doc["kind"]
        if kind == "ServiceAccount":
            core.create_namespaced_service_account(namespace, doc)
        elif kind == "Role":
            rbac.create_namespaced_role(namespace, doc)
        elif kind == "RoleBinding":
            rbac.create_namespaced_role_binding(namespace, doc)
        else:  # pragma: no cover - the manifest holds only these
            raise AssertionError(f"unexpected kind {kind} in {RBAC}")
    api.close()


def service_account_token(cp: ControlPlane, namespace: str, name: str = "throttlelab-runner") -> str:
    """A bound token for the service account (TokenRequest API)."""
    core = admin_core(cp)
    req = core.create_namespaced_service_account_token(
        name, namespace, {"spec": {"audiences": ["https://kubernetes.default.svc"], "expirationSeconds": 3600}})
    core.api_client.close()
    return req.status.token


@pytest.fixture(scope="session")
def node_cluster():
    """The real one-node cluster (control plane, containerd, kubelet, Prometheus), reused when one
    runs, else started for this session and stopped at its end.  Skips only when this machine
    lacks a prerequisite (the line says which and how to fix it)."""
    from .node_cluster import bring_up, cli

    node, why = bring_up()
    if node is None:
        pytest.skip(why)
    yield node
    if node.owned and not node.down:
        cli.down(node.layout, say=lambda msg: None)


#: node tests that stop the one-node cluster: they run after every other node test, in whichever file
STOPS_THE_CLUSTER = ("test_cluster_down_leaves_nothing", "test_a_killed_owner_leaves_nothing")


def pytest_collection_modifyitems(session, config, items):
    """Move the tests that stop the cluster to the end (in their order), so node tests of other files
    (collected after test_node.py) still find it running."""
    last = [i for i in items if i.name in STOPS_THE_CLUSTER]
    if last:
        items[:] = [i for i in items if i.name not in STOPS_THE_CLUSTER] + last
