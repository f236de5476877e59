"""Tests of throttlelab.experiment.kubernetes.kube_backend against a real API server: parallel lanes, the sweep CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from throttlelab.experiment.kubernetes import KubernetesBackend
from throttlelab.experiment.sweeps.run_store import RunStore
from throttlelab.experiment.registry import get_backend
from throttlelab.experiment.sweeps.run_sweep import run_sweep
from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping

from .cluster_helpers import labelled, make_spec
from .conftest import NODES

pytestmark = pytest.mark.kube


def test_parallel_runs_use_different_nodes(control_plane, admin, namespace, tmp_path):
    spec = make_spec(tmp_path, namespace, control_plane.kubeconfig, nodes=list(NODES), max_parallel=2)
    backend = KubernetesBackend()
    backend.prepare(spec)
    try:
        store = RunStore(spec.experiment_dir)
        results = list(backend.execute_many(spec.plan(), store.monitor_path))
    finally:
        backend.cleanup(spec)
    assert len(results) == 4 and all(r["status"] == "ok" for _, r in results)
    assert {r["node"] for _, r in results} == set(NODES)
    # the same through run_sweep (which uses execute_many when the backend has lanes)
    rows = run_sweep(spec.replace(name="kubetest-par"), get_backend("kubernetes"), progress=False)
    assert rows.height == 4 and set(rows["status"]) == {"ok"} and set(rows["node"]) == set(NODES)
    assert labelled(admin, namespace) == []


def test_throttlelab_sweep_cli_runs_a_kubernetes_spec(control_plane, admin, namespace, tmp_path):
    spec = make_spec(tmp_path, namespace, control_plane.kubeconfig)
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(spec.to_mapping(), sort_keys=False))
    cli = Path(sys.executable).parent / "throttlelab"
    proc = subprocess.run([str(cli), "sweep", str(path), "--no-progress"], capture_output=True, text=True,
                          timeout=90, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = RunStore(spec.experiment_dir).read_runs()
    assert rows.height == 4 and set(rows["status"]) == {"ok"} and set(rows["backend"]) == {"kubernetes"}
    assert labelled(admin, namespace) == []


def test_an_adaptive_sweep_runs_on_kubernetes_with_the_same_spec(control_plane, admin, namespace, tmp_path):
    from throttlelab.experiment.sweeps.adaptive.adaptive import AdaptiveDesign

    base = make_spec(tmp_path, namespace, control_plane.kubeconfig)
    spec = spec_from_mapping({**base.to_mapping(), "design": "adaptive", "adaptive": {"budget": 5}})
    rows = run_sweep(spec, get_backend("kubernetes"), progress=False)
    assert 4 <= rows.height <= 5 and (rows["backend"] == "kubernetes").all()
    assert all(rows["chosen_because"].to_list())
    assert rows.sort("started_at")["chosen_because"][0].startswith("initial design")
    status = AdaptiveDesign(spec, rows).status()
    assert status.finished and status.stop_reason
    assert labelled(admin, namespace) == []
