"""Tests of throttlelab.experiment.latency.latency_sweep: the grid of a latency sweep and its spec errors."""

from __future__ import annotations

import pytest

from throttlelab.errors import SpecError
from throttlelab.experiment.latency.latency_sweep import LatencySweep


def test_sweep_from_mapping_expands_the_grid():
    sw = LatencySweep.from_mapping({"experiment": "x", "endpoint": "pipeline", "mode": "closed", "loads": [10, 20],
                                    "contention": [0, 0.5], "configs": [{"semaphore": None}, {"semaphore": 4}],
                                    "replicates": 2, "seconds": 1})
    pts = sw.points()
    assert len(pts) == 2 * 2 * 2 * 2
    assert len({p.run_id for p in pts}) == len(pts)
    assert {p.config for p in pts} == {"workers=8,semaphore=none", "workers=8,semaphore=4"}
    assert pts[0].replicate == 0 and pts[-1].replicate == 1


@pytest.mark.parametrize("doc, match", [
    ({"loads": [1]}, "experiment"),
    ({"experiment": "x"}, "loads"),
    ({"experiment": "x", "loads": [1], "bogus": 1}, "unknown"),
    ({"experiment": "x", "loads": [1], "endpoint": "nope"}, "endpoint"),
    ({"experiment": "x", "loads": [1], "contention": [1.5]}, "contention"),
    ({"experiment": "x", "loads": [1], "configs": [{"nope": 1}]}, "configs"),
])
def test_bad_sweeps_are_spec_errors(doc, match):
    with pytest.raises(SpecError, match=match):
        LatencySweep.from_mapping(doc).points()
