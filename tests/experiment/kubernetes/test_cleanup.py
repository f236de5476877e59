"""Tests of throttlelab.experiment.kubernetes.cleanup against a real API server: orphans removed, Ctrl-C cleans up."""

from __future__ import annotations

import _thread
import threading

import pytest

from throttlelab.experiment.kubernetes import parse_options
from throttlelab.experiment.kubernetes import manifests as mf
from throttlelab.experiment.sweeps.run_store import RunStore
from throttlelab.experiment.registry import get_backend
from throttlelab.experiment.sweeps.run_sweep import run_sweep

from .cluster_helpers import labelled, make_spec

pytestmark = pytest.mark.kube


def test_resume_skips_finished_runs_and_removes_orphans(control_plane, admin, namespace, tmp_path):
    spec = make_spec(tmp_path, namespace, control_plane.kubeconfig)
    first = run_sweep(spec, get_backend("kubernetes"), progress=False, max_runs=2)
    assert first.height == 2
    # an orphan of a sweep that died: same experiment, another session
    orphan = mf.run_pod(name="tl-orphan", experiment=spec.name, run_id="l1m-t1-c0-r0-000000", session="dead",
                        options=parse_options({"namespace": namespace}),
                        argv=["true"], limit_cores=None, threads="1", sampling_interval_s=1)
    orphan["spec"]["nodeSelector"] = {"no-such-label": "x"}  # stays Pending
    admin.create_namespaced_pod(namespace, orphan)
    second = run_sweep(spec, get_backend("kubernetes"), progress=False)
    assert second.height == 4 and second["run_id"].n_unique() == 4
    files = sorted(p.name for p in (spec.experiment_dir / "runs").glob("*.json"))
    assert len(files) == 4 and not any("~" in f for f in files)  # nothing ran twice
    assert set(first["run_id"]) < set(second["run_id"])
    assert labelled(admin, namespace) == []


def test_ctrl_c_deletes_what_the_sweep_created(control_plane, admin, namespace, tmp_path, ctrl_c_raises):
    spec = make_spec(tmp_path, namespace, control_plane.kubeconfig, pending_timeout_s=60)
    spec = spec.replace(limits=(5.0,), threads=("1",))  # stays Pending until interrupted
    seen = threading.Event()

    def interrupt_when_pod_exists():
        for _ in range(200):
            if any(n.startswith("pod/") for n in labelled(admin, namespace)):
                seen.set()
                _thread.interrupt_main()
                return
            threading.Event().wait(0.05)

    t = threading.Thread(target=interrupt_when_pod_exists, daemon=True)
    t.start()
    with pytest.raises(KeyboardInterrupt):
        run_sweep(spec, get_backend("kubernetes"), progress=False)
    t.join(5)
    assert seen.is_set()
    assert labelled(admin, namespace) == []
    assert RunStore(spec.experiment_dir).read_runs().height == 0  # the interrupted run is redone on resume
