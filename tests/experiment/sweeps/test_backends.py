"""Tests of throttlelab.experiment.sweeps.backends: the protocol, the registry backends add themselves to, the identifying row."""

from __future__ import annotations

import os

import pytest

from throttlelab import tables
from throttlelab.experiment.sweeps import backends
from throttlelab.experiment.sweeps.backends import Backend, base_row, local_node_name, register_backend, registered_backends
from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping


def test_a_backend_registers_a_factory_and_nothing_else(monkeypatch):
    monkeypatch.setattr(backends, "_REGISTRY", registered_backends())  # leave the real registry as it was

    class Quiet:
        name = "quiet"

        def available(self):
            return True, ""

        def prepare(self, spec):
            pass

        def execute(self, plan, monitor_log):
            return base_row(plan, self.name) | {"status": "ok", "error": None}

        def cleanup(self, spec):
            pass

        def find_orphans(self):
            return []

        def remove_orphans(self):
            return []

    register_backend("quiet", Quiet)
    assert registered_backends()["quiet"] is Quiet and isinstance(Quiet(), Backend)
    with pytest.raises(TypeError, match="callable"):
        register_backend("by-name", "some.module:Backend")  # no loading by string


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
