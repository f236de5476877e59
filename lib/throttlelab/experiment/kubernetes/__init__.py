"""Kubernetes backend: sweeps run as pods through the official ``kubernetes`` client.

Modules
-------
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
pod_runner, run_context
    One run: pods created, watched, read and deleted; what the runs of a sweep share.
pod_placement, latency_pods, service_pod
    Latency experiments and the ``service`` workload on the cluster: the built-in Go service in a pod, driven
    by the load generator on this machine over the pod network.
cadvisor
    A run pod's counters as cAdvisor saw them, through Prometheus.
panel, ladder, panel_phases
    The kernel as judge: a panel of real workloads at the settings users give them, each resized in place through
    a ladder of limits whose windows of ``cpu.stat`` give the throttled ratio; deploying, patching, measuring.
cleanup
    Finding and deleting labelled objects (session cleanup, orphans).
kube_backend
    :class:`KubernetesBackend`, the :class:`~throttlelab.experiment.sweeps.backends.Backend` named
    ``kubernetes`` (:mod:`throttlelab.experiment.registry` makes one).

The spec's ``kubernetes:`` block is validated by
:class:`~throttlelab.experiment.sweeps.kubernetes_options.KubernetesOptions` (part of the sweep spec).
The ``kubernetes`` package itself is imported only when a cluster is used.
"""

from __future__ import annotations

from .kube_backend import KubernetesBackend
from .ladder import LadderWindow, run_ladder
from .panel import CONTAINER as PANEL_CONTAINER
from .panel import PANEL, PanelWorkload
from .panel_phases import (apply_patches, delete_namespace, deploy, measure, namespace, patch_documents, resources,
                           wait_rolled_out)
from throttlelab.experiment.sweeps.kubernetes_options import KubernetesOptions, parse_options

__all__ = ["KubernetesBackend", "KubernetesOptions", "LadderWindow", "PANEL", "PANEL_CONTAINER", "PanelWorkload",
           "apply_patches", "delete_namespace", "deploy", "measure", "namespace", "parse_options", "patch_documents",
           "resources", "run_ladder", "wait_rolled_out"]
