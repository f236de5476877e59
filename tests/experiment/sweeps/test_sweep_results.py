"""Notebook 01's result class for a simulated grid sweep and an adaptive one validates against the schema."""

from __future__ import annotations

from tests.notebooks.results_schemas import validate_object
from throttlelab.experiment.sweeps.adaptive.adaptive import AdaptiveDesign
from throttlelab.experiment.sweeps.run_store import RunStore
from throttlelab.experiment.registry import get_backend
from throttlelab.experiment.sweeps.run_sweep import run_sweep
from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping
from throttlelab.experiment.sweeps.sweep_results import sweep_results
from throttlelab.experiment.sweeps.sweep_summary import sweep_summary

SIM = {"parallelism": 1.5, "noise_cv": 0.05, "seed": 3}


def _spec(tmp_path, **kw):
    return spec_from_mapping({"name": "sr", "backend": "simulated", "simulated": SIM, "limits": [0.5, 1, "unlimited"],
                              "threads": [1, 2], "replicates": 2, "data_root": str(tmp_path), **kw})


def test_grid_sweep_document(tmp_path):
    spec = _spec(tmp_path)
    runs = run_sweep(spec, get_backend(spec.backend), progress=False)
    doc = validate_object(sweep_results(spec, RunStore(spec.experiment_dir), spec.plan(), runs, sweep_summary(runs)))
    assert doc["experiment"] == "sr" and doc["design"] == "grid" and doc["decisions"] is None
    assert doc["planned_runs"] == len(spec.plan()) and doc["stored_runs"] == runs.height
    assert sum(doc["status_counts"].values()) == runs.height and doc["example_run"] is None
    assert len(doc["summary"]) == 6  # 3 limits x 2 thread counts


def test_nothing_run_says_why(tmp_path):
    spec = _spec(tmp_path)
    empty = RunStore(spec.experiment_dir).read_runs()
    r = sweep_results(spec, RunStore(spec.experiment_dir), spec.plan(), empty, sweep_summary(empty),
                      skipped_reason="run=False", example_run="")
    doc = validate_object(r)
    assert doc["stored_runs"] == 0 and doc["status_counts"] == {} and doc["skipped_reason"] == "run=False"


def test_adaptive_sweep_lists_its_decisions(tmp_path):
    spec = _spec(tmp_path, design="adaptive", replicates=3, seed=2)
    runs = run_sweep(spec, get_backend(spec.backend), progress=False)
    status = AdaptiveDesign(spec, runs).status()
    doc = validate_object(sweep_results(spec, RunStore(spec.experiment_dir), spec.plan(), runs, sweep_summary(runs),
                                        adaptive_status=status))
    assert doc["design"] == "adaptive" and doc["planned_runs"] == status.budget and doc["stop_reason"]
    assert all(0 <= d["confidence"] <= 1 for d in doc["decisions"])
