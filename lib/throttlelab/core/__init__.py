"""The domain core: the terms every layer shares, defined once (below ingest; imports no layer).

``quantities``  CPU quantities (cores, millicores, ``unlimited``) read and written; memory quantities
``metrics``     the metric catalogue: CPU counters' canonical, cgroup v1/v2 and cAdvisor names; kube-state-metrics, node size
``cpu_stat``    a cgroup's ``cpu.stat`` read, its v1 or v2 keys as the canonical counters
``ordering``    order and choice by a float score that never depend on its last bits (near-ties by a fixed order)
"""

from __future__ import annotations

from throttlelab.core.cpu_stat import counter, parse_cpu_stat, stat_keys
from throttlelab.core.metrics import (
    CADVISOR_COUNTERS,
    CADVISOR_GAUGES,
    CADVISOR_PERIOD,
    CADVISOR_QUOTA,
    COUNTER,
    CPU_COUNTERS,
    KSM_HPA,
    KSM_JOB_OWNER,
    KSM_LIMITS,
    KSM_OWNERS,
    KSM_POD_LABELS,
    KSM_POD_OWNER,
    KSM_REPLICASET_OWNER,
    KSM_REQUESTS,
    KUBERNETES_METRICS,
    NODE_ALLOCATABLE,
    NODE_CORES,
    NODE_SIZE,
    CpuCounter,
    from_cadvisor,
    from_field,
)
from throttlelab.core.ordering import argbest, best_by_score, order_by_score, tie_order
from throttlelab.core.quantities import (
    cores_expr,
    cores_text,
    format_cores,
    format_cpu,
    format_cpu_range,
    format_millicores,
    label_cores,
    memory_bytes,
    parse_cores,
)

__all__ = ['CADVISOR_COUNTERS', 'CADVISOR_GAUGES', 'CADVISOR_PERIOD', 'CADVISOR_QUOTA', 'COUNTER', 'CPU_COUNTERS',
           'KSM_HPA', 'KSM_JOB_OWNER', 'KSM_LIMITS', 'KSM_OWNERS', 'KSM_POD_LABELS', 'KSM_POD_OWNER',
           'KSM_REPLICASET_OWNER', 'KSM_REQUESTS', 'KUBERNETES_METRICS', 'NODE_ALLOCATABLE', 'NODE_CORES', 'NODE_SIZE',
           'CpuCounter', 'argbest', 'best_by_score', 'cores_expr', 'cores_text', 'counter', 'format_cores', 'format_cpu', 'format_cpu_range',
           'format_millicores', 'from_cadvisor', 'from_field', 'label_cores', 'memory_bytes', 'order_by_score', 'parse_cores',
           'parse_cpu_stat', 'stat_keys', 'tie_order']
