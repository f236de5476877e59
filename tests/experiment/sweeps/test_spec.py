"""Tests of throttlelab.experiment.sweeps.spec: the one model of a sweep spec, its identity, its plan."""

from __future__ import annotations

import pytest

from throttlelab.experiment.sweeps.plan import Contention
from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping

from .sweep_specs import BASE


def test_simulated_truth_is_part_of_the_run_ids():
    """Two simulated truths under one name never share run ids (a resumed store would mix them) nor noise draws."""
    from throttlelab.experiment.simulation.simulated_backend import draw_seconds, truth_from_options

    base = {"name": "sim", "backend": "simulated", "limits": [1], "threads": [1], "data_root": "unused"}
    a = spec_from_mapping({**base, "simulated": {"cpu_seconds": 4, "noise_cv": 0.05, "seed": 3}})
    b = spec_from_mapping({**base, "simulated": {"cpu_seconds": 4, "noise_cv": 0.05, "seed": 3, "parallelism": 3}})
    again = spec_from_mapping({**base, "simulated": {"cpu_seconds": 4, "noise_cv": 0.05, "seed": 3}})
    assert a.config_hash() == again.config_hash() != b.config_hash()
    ra, rb = a.plan()[0].run_id, b.plan()[0].run_id
    assert ra != rb
    ta, tb = truth_from_options(a.backend_options), truth_from_options(b.backend_options)
    # the same noise-free time at 1 core and 1 thread, but the runs' noise differs
    assert draw_seconds(ta, ra, 1.0, "1")[0] != draw_seconds(tb, rb, 1.0, "1")[0]
    local = spec_from_mapping({**base, "backend": "local"})
    assert local.config_hash() == spec_from_mapping({**base, "backend": "local"}).config_hash()


def test_the_spec_is_one_pydantic_model_holding_the_parsed_values():
    from throttlelab.config_file import ConfigModel
    from throttlelab.experiment.sweeps.plan import Workload
    from throttlelab.experiment.sweeps.spec import SweepSpec

    spec = spec_from_mapping(BASE)
    assert isinstance(spec, SweepSpec) and isinstance(spec, ConfigModel)
    assert spec.limits == (0.5, 1.5, None) and spec.threads == ("1", "auto")
    assert spec.workload == Workload("burner", None, {"cpu_seconds": 0.2})
    old = spec_from_mapping({"experiment": "old", "limits": [1]})
    assert old.name == "old" and old.experiment_dir.name == "old"
    assert spec.replace(replicates=5).replicates == 5 and spec.replace(replicates=5) != spec
    with pytest.raises(TypeError):
        spec.replace(replicate=5)


def test_a_run_plan_is_the_same_from_the_grid_and_one_at_a_time():
    """The adaptive design makes its runs with ``run_plan``: the same run as the grid's, given its place."""
    spec = spec_from_mapping({**BASE, "warmup": 1})
    for p in spec.plan():
        assert spec.run_plan(p.limit_cores, p.threads, p.contention, p.replicate, warmup=p.warmup, order=p.order) == p
    assert spec.run_plan(1.5, "auto", Contention(), 7).run_id.endswith(f"-r7-{spec.config_hash()}")
    assert "-w0-" in spec.run_plan(0.5, "1", Contention(), 0, warmup=True).run_id
