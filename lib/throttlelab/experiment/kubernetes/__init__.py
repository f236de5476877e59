"""Kubernetes backend: sweeps run as pods through the official ``kubernetes`` client.

Modules
-------
options
    The spec's ``kubernetes:`` mapping, validated.
client
    Connecting with a kubeconfig (context selectable) or in-cluster config.
run_context
    What all runs of one session share (cluster, options, nodes' sizes).
labels
    Names and labels of the objects a sweep creates; label selectors.
manifests
    Run pods, noisy-neighbour pods and the sampler ConfigMap.
sampler.sh
    The in-pod sampler: runs the workload, prints monitor-log blocks of the
    container's own cgroup to the pod log.
pod_status, pod_log, pod_summary
    Reading a pod's status, splitting its log, totals from its samples.
pod_watch
    Waiting for a pod to run or end; why it is still Pending.
pod_runner
    One run: pods created, watched, read and deleted.
service_pod
    A ``service`` run: the built-in Go service in the run pod, driven by the
    load generator on this machine over the pod network.
cadvisor
    The run pod's counters as cAdvisor saw them, through Prometheus (a second opinion).
latency_pods, pod_placement
    Latency points on the one-node cluster: the service Deployment, stress-pod
    neighbours, and where a point runs.
cleanup
    Finding and deleting labelled objects (session cleanup, orphans).
kube_backend
    :class:`KubernetesBackend`, the :class:`~throttlelab.experiment.sweeps.backends.Backend`.

The ``kubernetes`` package itself is imported only when a cluster is used.
"""

from __future__ import annotations

from .kube_backend import KubernetesBackend
from throttlelab.experiment.sweeps.kubernetes_options import KubernetesOptions, parse_options

__all__ = ["KubernetesBackend", "KubernetesOptions", "parse_options"]
