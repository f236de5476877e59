"""Tests of throttlelab.experiment.kubernetes.client against a real API server: contexts, clear errors, the RBAC role."""

from __future__ import annotations

import pytest
import yaml

from throttlelab.experiment.registry import get_backend
from throttlelab.experiment.sweeps.run_sweep import run_sweep

from .cluster_helpers import labelled, make_spec
from .conftest import apply_rbac, service_account_token

pytestmark = pytest.mark.kube


def test_the_role_is_enough_and_nothing_outside_it_is_allowed(control_plane, admin, namespace, tmp_path):
    from kubernetes import client, config
    from kubernetes.client import ApiException

    apply_rbac(control_plane, namespace)
    token = service_account_token(control_plane, namespace)
    kubeconfig = control_plane.kubeconfig_for_token(token, tmp_path / "runner.kubeconfig")
    spec = make_spec(tmp_path, namespace, kubeconfig)
    rows = run_sweep(spec, get_backend("kubernetes"), progress=False)
    assert rows.height == 4 and rows["status"].to_list() == ["ok"] * 4, rows["error"].to_list()
    assert labelled(admin, namespace) == []

    api = config.new_client_from_config(config_file=str(kubeconfig))
    core = client.CoreV1Api(api)
    core.list_namespaced_pod(namespace)  # allowed
    refused = {
        "pods in another namespace": lambda: core.list_namespaced_pod("default"),
        "secrets": lambda: core.list_namespaced_secret(namespace),
        "nodes": lambda: core.list_node(),
        "pod exec-like update": lambda: core.patch_namespaced_config_map("x", namespace, {"data": {}}),
    }
    for what, call in refused.items():
        with pytest.raises(ApiException) as err:
            call()
        assert err.value.status == 403, what
    api.close()


def test_the_kubeconfig_context_is_selectable_and_errors_are_clear(control_plane, namespace, tmp_path):
    from throttlelab.errors import EnvironmentProblem

    from .control_plane import free_port

    doc = yaml.safe_load(control_plane.kubeconfig.read_text())
    closed = {"name": "nowhere", "cluster": {**doc["clusters"][0]["cluster"], "server": f"https://127.0.0.1:{free_port()}"}}
    doc["clusters"].append(closed)
    doc["contexts"] = [{"name": "lab", "context": {"cluster": "test", "user": "user"}},
                       {"name": "broken", "context": {"cluster": "nowhere", "user": "user"}}]
    doc["current-context"] = "broken"
    kubeconfig = tmp_path / "two-contexts.kubeconfig"
    kubeconfig.write_text(yaml.safe_dump(doc))
    spec = make_spec(tmp_path, namespace, kubeconfig, context="lab").replace(limits=(0.5,), threads=("1",))
    assert run_sweep(spec, get_backend("kubernetes"), progress=False)["status"].to_list() == ["ok"]

    with pytest.raises(EnvironmentProblem, match="cannot reach the Kubernetes API at https://127.0.0.1") as err:
        run_sweep(make_spec(tmp_path, namespace, kubeconfig, experiment="other"), get_backend("kubernetes"),
                  progress=False)
    assert control_plane.admin_token not in str(err.value)  # no credentials in messages
    with pytest.raises(EnvironmentProblem, match="context 'nope'"):
        run_sweep(make_spec(tmp_path, namespace, kubeconfig, context="nope", experiment="other"),
                  get_backend("kubernetes"), progress=False)
