"""Tests of throttlelab.experiment.sweeps.spec_file: the blocks of a sweep spec, validated as part of the spec."""

from __future__ import annotations

import pytest

from throttlelab.config_file import validate
from throttlelab.errors import SpecError
from throttlelab.experiment.sweeps.plan import Workload
from throttlelab.experiment.sweeps.spec import SweepSpec
from throttlelab.experiment.sweeps.spec_loading import load_spec
from throttlelab.experiment.sweeps.spec_file import WORKLOAD_OPTIONS, AdaptiveSettings


def test_defaults():
    spec = validate(SweepSpec, {"name": "x"})
    assert (spec.backend, spec.workload, spec.threads, spec.replicates, spec.order) == (
        "local", Workload("burner"), ("auto",), 1, "random")
    assert spec.period_us == 100_000 and str(spec.data_root) == "data/raw" and spec.limits == (None,)
    assert spec.adaptive == AdaptiveSettings() and spec.adaptive.confidence == 0.95 and set(WORKLOAD_OPTIONS) >= {"ffmpeg", "burner"}


@pytest.mark.parametrize("workload, message", [
    ("{kind: ffmpeg, presett: fast}", "s.yaml:3: key 'workload.presett': unknown key (did you mean 'preset'?"),
    ("{kind: ffmpeg, size: big}", "s.yaml:3: key 'workload.size': String should match pattern"),
    ("{kind: go, work: 0}", "s.yaml:3: key 'workload.work': Input should be greater than or equal to 1"),
    ("{kind: burner, cpu_second: 1}", "s.yaml:3: key 'workload.cpu_second': unknown key (did you mean 'cpu_seconds'?"),
    ("{kind: command, command: 'x {threads}', threads: 2}", "s.yaml:3: key 'workload.threads': unknown key"),
])
def test_workload_options_are_checked_per_kind_with_their_line(tmp_path, workload, message):
    path = tmp_path / "s.yaml"
    path.write_text(f"name: x\nbackend: local\nworkload: {workload}\n")
    with pytest.raises(SpecError) as err:
        load_spec(path)
    assert message in str(err.value), str(err.value)


@pytest.mark.parametrize("doc, message", [
    ({"name": "a b"}, "key 'name': must be a simple name"),
    ({"name": "x", "replicates": 0}, "key 'replicates': Input should be greater than or equal to 1"),
    ({"name": "x", "replicates": "2"}, "key 'replicates': Input should be a valid integer"),
    ({"name": "x", "period_us": 500}, "key 'period_us': Input should be greater than or equal to 1000"),
    ({"name": "x", "backend": "docker"}, "key 'backend': Input should be 'local', 'kubernetes' or 'simulated'"),
    ({"name": "x", "limit": [1]}, "key 'limit': unknown key (did you mean 'limits'? allowed: adaptive, backend, burst_us,"),
    ({"name": "x", "local": {"parent_weight": 8}}, "key 'local.parent_weight': unknown key (did you mean "
                                                   "'parent_weight_tasks'?"),
    ({"name": "x", "local": {"parent_weight_tasks": 0}}, "key 'local.parent_weight_tasks': Input should be greater"),
    ({"name": "x", "adaptive": {"confidence": 0.4}}, "key 'adaptive.confidence': Input should be greater than 0.5"),
    ({"name": "x", "adaptive": {"model": "grid"}}, "key 'adaptive.model': Input should be 'cells' or 'smooth'"),
    ({"name": "x", "simulated": {"outlier_factor": [3, 1]}}, "key 'simulated.outlier_factor': a range [low, high]"),
    ({"name": "x", "simulated": {"dead_zone": {"from": 1, "to": 2}}}, "key 'simulated.dead_zone.slowdown_pct': "
                                                                      "required"),
])
def test_bad_keys_are_named(doc, message):
    with pytest.raises(SpecError) as err:
        validate(SweepSpec, doc, source="s.yaml", lines={("name",): 1})
    assert message in str(err.value)
    assert str(err.value).startswith("s.yaml")
