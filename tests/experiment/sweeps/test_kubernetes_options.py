"""Tests of throttlelab.experiment.sweeps.kubernetes_options: the kubernetes: block validated (no cluster needed)."""

from __future__ import annotations

import pytest

from throttlelab.errors import SpecError
from throttlelab.experiment.sweeps.kubernetes_options import parse_options


def test_options_defaults_and_validation():
    o = parse_options({"namespace": "lab", "nodes": ["a", "b", "a"], "max_parallel": 2, "memory_limit": "1Gi"})
    assert (o.namespace, o.nodes, o.max_parallel, o.memory_limit) == ("lab", ("a", "b"), 2, "1Gi")
    with pytest.raises(SpecError, match=r"s.yaml: key 'kubernetes.namespace'"):
        parse_options({"namespace": "Bad_NS"}, source="s.yaml")
    with pytest.raises(SpecError, match="kubernetes.bogus': unknown key"):
        parse_options({"bogus": 1})
    with pytest.raises(SpecError, match="kubernetes.command"):
        parse_options({"command": "x {cores}"})
    with pytest.raises(SpecError, match="in-cluster config takes no context"):
        parse_options({"in_cluster": True, "context": "c"})
