"""Tests of throttlelab.experiment.latency.latency_placement: the service in its cgroup, or nowhere special."""

from __future__ import annotations

from pathlib import Path

import pytest

from throttlelab.errors import SpecError
from throttlelab.experiment.latency.latency_placement import Placement
from throttlelab.experiment.latency.service import PipelineConfig


def test_a_limit_without_cgroups_is_a_spec_error():
    with pytest.raises(SpecError, match="a CPU limit needs backend 'local'"):
        with Placement("none", "r1", 0.5):
            pass


def test_backend_none_runs_the_service_as_is():
    with Placement("none", "r2", None) as place:
        assert place.counters() is None
        with place.service(PipelineConfig(max_workers=1)) as svc:
            assert svc.health()["pid"] == svc.pid
            assert "/throttlelab/" not in Path(f"/proc/{svc.pid}/cgroup").read_text()


@pytest.mark.cgroup
def test_local_backend_puts_the_service_in_the_limited_cgroup(cgroup_layout):
    with Placement("local", "r3", 0.25) as place:
        cg = place.cgroup
        with place.service(PipelineConfig(max_workers=1)) as svc:
            assert svc.health()["pid"] == svc.pid
            assert f"/throttlelab/{cg.relpath}" in Path(f"/proc/{svc.pid}/cgroup").read_text()
            counters = place.counters()
            assert counters.usage_ns > 0  # the service's start-up ran inside the cgroup
            assert counters.cpu_max == "25000 100000"
    assert not any(d.exists() for d in cg.dirs)
