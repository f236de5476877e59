"""Tests of throttlelab.experiment.sweeps.spec_file: the keys a sweep spec may have."""

from __future__ import annotations

import pytest

from throttlelab.config_file import validate
from throttlelab.errors import SpecError
from throttlelab.experiment.sweeps.spec_file import SweepSpecFile


def test_defaults():
    spec = validate(SweepSpecFile, {"name": "x"})
    assert (spec.backend, spec.workload, spec.threads, spec.replicates, spec.order) == (
        "local", "burner", "auto", 1, "random")
    assert spec.period_us == 100_000 and spec.data_root == "data/raw"


@pytest.mark.parametrize("doc, message", [
    ({"name": "a b"}, "key 'name': must be a simple name"),
    ({"name": "x", "replicates": 0}, "key 'replicates': Input should be greater than or equal to 1"),
    ({"name": "x", "replicates": "2"}, "key 'replicates': Input should be a valid integer"),
    ({"name": "x", "period_us": 500}, "key 'period_us': Input should be greater than or equal to 1000"),
    ({"name": "x", "backend": "docker"}, "key 'backend': Input should be 'local', 'kubernetes' or 'simulated'"),
    ({"name": "x", "limit": [1]}, "key 'limit': unknown key (did you mean 'limits'? allowed: adaptive, backend, burst_us,"),
])
def test_bad_keys_are_named(doc, message):
    with pytest.raises(SpecError) as err:
        validate(SweepSpecFile, doc, source="s.yaml", lines={("name",): 1})
    assert message in str(err.value)
    assert str(err.value).startswith("s.yaml")
