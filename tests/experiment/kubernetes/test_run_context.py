"""A sweep session's shared context: a node's CPU count from the spec, from the cache, or read from a real node."""

from __future__ import annotations

import pytest

from throttlelab.errors import EnvironmentProblem
from throttlelab.experiment.kubernetes.client import Cluster
from throttlelab.experiment.sweeps.kubernetes_options import KubernetesOptions
from throttlelab.experiment.kubernetes.run_context import RunContext, node_cores

from .conftest import NODE_CPUS, NODES


def test_the_specs_node_cpus_win_and_a_read_node_is_remembered():
    ctx = RunContext(cluster=None, options=KubernetesOptions(node_cpus=8), experiment="e", session="s")
    assert node_cores(ctx, "any") == 8  # no cluster call
    ctx = RunContext(cluster=None, options=KubernetesOptions(), experiment="e", session="s",
                     node_cores={"n1": 4.0})
    assert node_cores(ctx, "n1") == 4.0


@pytest.mark.kube
def test_a_nodes_allocatable_cpus_are_read_once(admin, namespace):
    ctx = RunContext(cluster=Cluster(admin.api_client, admin, namespace, ""), options=KubernetesOptions(),
                     experiment="e", session="s")
    assert node_cores(ctx, NODES[0]) == float(NODE_CPUS)
    assert ctx.node_cores == {NODES[0]: float(NODE_CPUS)}
    with pytest.raises(EnvironmentProblem, match="kubernetes.node_cpus"):
        node_cores(ctx, "no-such-node")
