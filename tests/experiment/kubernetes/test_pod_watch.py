"""Tests of throttlelab.experiment.kubernetes.pod_watch against a real API server (kwok nodes): Pending and run timeouts."""

from __future__ import annotations

import pytest

from throttlelab.experiment.registry import get_backend
from throttlelab.experiment.sweeps.run_sweep import run_sweep

from .cluster_helpers import labelled, make_spec
from .conftest import NODES

pytestmark = pytest.mark.kube


def test_unschedulable_run_times_out_with_the_schedulers_reason(control_plane, admin, namespace, tmp_path):
    spec = make_spec(tmp_path, namespace, control_plane.kubeconfig, pending_timeout_s=2)
    spec = spec.replace(limits=(5.0,), threads=("1",))  # the fake nodes have 2 CPUs
    rows = run_sweep(spec, get_backend("kubernetes"), progress=False)
    assert rows.height == 1
    row = rows.row(0, named=True)
    assert row["status"] == "timeout"
    assert "Pending for more than 2 s" in row["error"] and "Insufficient cpu" in row["error"], row["error"]
    assert labelled(admin, namespace) == []


def test_a_run_longer_than_its_timeout_is_stopped_and_recorded(control_plane, admin, namespace, tmp_path):
    spec = make_spec(tmp_path, namespace, control_plane.kubeconfig, annotations={"test.throttlelab.io/hold": "1"})
    spec = spec.replace(limits=(0.5,), threads=("1",), timeout_s=1.0)
    row = run_sweep(spec, get_backend("kubernetes"), progress=False).row(0, named=True)
    assert row["status"] == "timeout" and row["error"] == "still running after the run timeout of 1 s"
    assert row["node"] in NODES
    assert labelled(admin, namespace) == []
