"""What all runs of one Kubernetes sweep session share (cluster, options, nodes' sizes), and a node's CPU count."""

from __future__ import annotations

from dataclasses import dataclass, field

from throttlelab.core.quantities import parse_cores
from throttlelab.errors import EnvironmentProblem

from .client import Cluster, api_error_message, api_exception
from throttlelab.experiment.sweeps.kubernetes_options import KubernetesOptions


@dataclass
class RunContext:
    """What all runs of one sweep session share."""

    cluster: Cluster
    options: KubernetesOptions
    experiment: str
    session: str
    node_cores: dict[str, float] = field(default_factory=dict)


def node_cores(ctx: RunContext, node: str) -> float:
    """Allocatable CPUs of ``node``: ``options.node_cpus``, else read from the node.

    Raises
    ------
    EnvironmentProblem
        When neither is available (reading nodes needs a ClusterRole the
        namespaced runner does not have: set ``kubernetes.node_cpus``).
    """
    if ctx.options.node_cpus:
        return ctx.options.node_cpus
    if node not in ctx.node_cores:
        try:
            n = ctx.cluster.core.read_node(node)
        except api_exception() as exc:
            raise EnvironmentProblem(
                f"cannot read node {node} to size the noisy neighbour ({api_error_message(exc)}); "
                "set kubernetes.node_cpus in the spec") from None
        ctx.node_cores[node] = parse_cores((n.status.allocatable or {}).get("cpu", "1"))
    return ctx.node_cores[node]
