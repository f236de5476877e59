"""Simulated experiments: a backend drawing runs from a known curve, synthetic containers and clusters."""

from throttlelab.experiment.simulation.cluster_openmetrics import (
    ksm_lines, node_size_lines, pod_lines, series_of, write_cluster
)
from throttlelab.experiment.simulation.simulated_backend import (
    SimulatedBackend, SimulatedTruth, draw_seconds, noise_sd, true_seconds, truth_from_options
)
from throttlelab.experiment.simulation.synthetic_cluster import NODES, Pod, cluster, true_limit, workload_containers
from throttlelab.experiment.simulation.synthetic_containers import SCENARIO_NODES, ContainerSpec, scenario_specs, simulate
from throttlelab.experiment.simulation.synthetic_truth import true_smallest_limit, true_throttled_ratio
from throttlelab.experiment.simulation.synthetic_openmetrics import backfill, encode_lines, openmetrics_text

__all__ = [
    'NODES', 'SCENARIO_NODES', 'ContainerSpec', 'Pod', 'SimulatedBackend', 'SimulatedTruth', 'backfill', 'cluster', 'draw_seconds',
    'encode_lines', 'ksm_lines', 'node_size_lines', 'noise_sd', 'openmetrics_text', 'pod_lines', 'scenario_specs',
    'series_of', 'simulate', 'true_limit', 'true_seconds', 'true_smallest_limit', 'true_throttled_ratio',
    'truth_from_options', 'workload_containers', 'write_cluster'
]
