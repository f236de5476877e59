"""Tests of throttlelab.experiment.sweeps.backends: the backend registry and the identifying row."""

from __future__ import annotations

import os

import pytest

from throttlelab import tables
from throttlelab.experiment.sweeps import backends
from throttlelab.experiment.sweeps.backends import (backend_names, base_row, get_backend, local_node_name,
                                                    register_backend)
from throttlelab.experiment.sweeps.spec import spec_from_mapping


def test_builtin_backends_are_registered_and_unknown_names_list_them():
    assert {"local", "kubernetes"} <= set(backend_names())
    with pytest.raises(KeyError, match="unknown backend 'nope'; known: local, kubernetes"):
        get_backend("nope")


def test_string_factories_are_imported_when_asked_for(monkeypatch):
    monkeypatch.setattr(backends, "_REGISTRY", dict(backends._REGISTRY))  # leave the real registry as it was
    register_backend("spec-file-model", "throttlelab.experiment.sweeps.spec_file:LocalOptions")
    assert "spec-file-model" in backend_names()
    made = get_backend("spec-file-model")  # any zero-argument factory: here a model with defaults
    assert type(made).__name__ == "LocalOptions"


def test_base_row_identifies_the_run_and_starts_failed():
    spec = spec_from_mapping({"name": "e", "limits": ["1500m"], "threads": [4], "contention": [0.5], "warmup": 1})
    plan = spec.plan()[-1]
    row = base_row(plan, "local")
    assert (row["experiment"], row["run_id"], row["backend"]) == ("e", plan.run_id, "local")
    assert (row["cpu_limit_cores"], row["threads"], row["contention"], row["warmup"]) == (1.5, "4", 0.5, False)
    assert (row["status"], row["error"]) == ("failed", "run did not finish")
    assert set(row) <= set(tables.schema("runs"))


def test_local_node_name_counts_usable_cpus():
    assert local_node_name().endswith(f"({len(os.sched_getaffinity(0))} cpus)")
