"""Tests of throttlelab.experiment.sweeps.backends: the protocol a backend implements, the identifying row."""

from __future__ import annotations

import os

from throttlelab import tables
from throttlelab.experiment.sweeps.backends import Backend, base_row, local_node_name
from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping


def test_a_backend_is_any_class_with_the_protocol_s_methods():
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

    assert isinstance(Quiet(), Backend)
    assert not isinstance(object(), Backend)


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
