"""The metric catalogue: each CPU counter's names (canonical, cgroup v1/v2, cAdvisor), and the Kubernetes series.

The canonical name of a counter is its column in the samples table
(:data:`throttlelab.tables.SAMPLES`); every reader and writer of another
vocabulary maps through :data:`CPU_COUNTERS` instead of keeping its own table.

=====================  ==================  ========================  =============================================
canonical (samples)    cgroup v2           cgroup v1                 cAdvisor / Prometheus
=====================  ==================  ========================  =============================================
``usage_seconds``      ``usage_usec``      ``cpuacct.usage`` (ns)    ``container_cpu_usage_seconds_total``
``user_seconds``       ``user_usec``       --                        --
``system_seconds``     ``system_usec``     --                        --
``nr_periods``         ``nr_periods``      ``nr_periods``            ``container_cpu_cfs_periods_total``
``nr_throttled``       ``nr_throttled``    ``nr_throttled``          ``container_cpu_cfs_throttled_periods_total``
``throttled_seconds``  ``throttled_usec``  ``throttled_time`` (ns)   ``container_cpu_cfs_throttled_seconds_total``
``nr_bursts``          ``nr_bursts``       ``nr_bursts``             --
``burst_seconds``      ``burst_usec``      ``burst_time`` (ns)       --
=====================  ==================  ========================  =============================================

Each counter also names its per-second rate (a measure of the rates table; what a
Prometheus ``rate()`` of it is), its field in
:class:`~throttlelab.ingest.prometheus.ContainerCPU` (that rate per step) and
its column in the runs table (a run's total):

=====================  =================================  ======================  ===================
canonical              rate (``measure``)                 ``ContainerCPU`` field  runs column
=====================  =================================  ======================  ===================
``usage_seconds``      ``cores``                          ``usage``               ``cpu_seconds``
``user_seconds``       --                                 --                      ``user_seconds``
``system_seconds``     --                                 --                      ``system_seconds``
``nr_periods``         ``periods_per_second``             ``periods``             ``nr_periods``
``nr_throttled``       ``throttled_periods_per_second``   ``throttled_periods``   ``nr_throttled``
``throttled_seconds``  ``throttled_seconds_per_second``   ``throttled_seconds``   ``throttled_seconds``
=====================  =================================  ======================  ===================

The cAdvisor gauges of a container's CFS limit (:data:`CADVISOR_GAUGES`) are its
quota (:data:`CADVISOR_QUOTA`, us) and period (:data:`CADVISOR_PERIOD`, the samples' ``period_us``).

The Kubernetes series read beside them (:data:`KUBERNETES_METRICS`), from kube-state-metrics and the kubelet:

==================================  =====================================================================
name                                metric
==================================  =====================================================================
:data:`KSM_REQUESTS`, ``_LIMITS``   ``kube_pod_container_resource_requests`` / ``_limits`` (``resource="cpu"``, cores)
:data:`KSM_POD_LABELS`              ``kube_pod_labels`` (label ``k`` as ``label_<k>``)
:data:`KSM_OWNERS`                  ``kube_pod_owner``, ``kube_replicaset_owner``, ``kube_job_owner``
:data:`KSM_HPA`                     ``kube_horizontalpodautoscaler_`` ``info``, ``spec_target_metric``,
                                    ``spec_min_replicas``, ``spec_max_replicas``, ``status_current_replicas``
:data:`NODE_SIZE`                   the node's CPU count: ``machine_cpu_cores`` (cAdvisor), else
                                    ``kube_node_status_allocatable`` (``resource="cpu"``)
==================================  =====================================================================

Examples
--------
>>> COUNTER["throttled_seconds"].v1_key, COUNTER["throttled_seconds"].v1_scale
('throttled_time', 1000000000.0)
>>> from_cadvisor("container_cpu_usage_seconds_total").name, CADVISOR_COUNTERS["nr_periods"]
('usage_seconds', 'container_cpu_cfs_periods_total')
>>> [COUNTER[n].container_field for n in CADVISOR_COUNTERS]
['usage', 'periods', 'throttled_periods', 'throttled_seconds']
>>> KSM_OWNERS[KSM_JOB_OWNER], KSM_HPA["spec_min_replicas"], NODE_SIZE[0]
('job_name', 'kube_horizontalpodautoscaler_spec_min_replicas', 'machine_cpu_cores')
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CpuCounter:
    """One cumulative CPU counter under all its names.

    Attributes
    ----------
    name
        Canonical name: the samples table column.
    unit
        ``seconds`` or ``periods`` (then an integer count).
    v2_key, v2_scale
        Its ``cpu.stat`` key in cgroup v2 and what to divide the value by for the canonical unit.
    v1_key, v1_scale
        Its cgroup v1 key (a ``cpu.stat`` key, or the file ``cpuacct.usage`` for the usage; ``None``: v1 has
        none) and divisor.
    cadvisor
        The cAdvisor metric (what Prometheus scrapes from the kubelet); ``None`` when cAdvisor has none.
    rate
        Name of its per-second rate (the rates table's measure; ``cores`` for the usage); ``None`` if not read as one.
    container_field
        Its per-step rate's field in :class:`~throttlelab.ingest.prometheus.ContainerCPU`; ``None`` if none.
    run_column
        Its column in the runs table: the run's total (``cpu_seconds`` for the usage); ``None`` when runs have none.
    """

    name: str
    unit: str
    v2_key: str
    v2_scale: float
    v1_key: str | None
    v1_scale: float
    cadvisor: str | None
    rate: str | None
    container_field: str | None
    run_column: str | None

    @property
    def integer(self) -> bool:
        """Counts (periods) are integers; times are not."""
        return self.unit == "periods"


#: Every counter, in the samples table's order.
CPU_COUNTERS = (
    CpuCounter("usage_seconds", "seconds", "usage_usec", 1e6, "cpuacct.usage", 1e9, "container_cpu_usage_seconds_total",
               "cores", "usage", "cpu_seconds"),
    CpuCounter("user_seconds", "seconds", "user_usec", 1e6, None, 1e9, None, None, None, "user_seconds"),
    CpuCounter("system_seconds", "seconds", "system_usec", 1e6, None, 1e9, None, None, None, "system_seconds"),
    CpuCounter("nr_periods", "periods", "nr_periods", 1, "nr_periods", 1, "container_cpu_cfs_periods_total",
               "periods_per_second", "periods", "nr_periods"),
    CpuCounter("nr_throttled", "periods", "nr_throttled", 1, "nr_throttled", 1,
               "container_cpu_cfs_throttled_periods_total", "throttled_periods_per_second", "throttled_periods",
               "nr_throttled"),
    CpuCounter("throttled_seconds", "seconds", "throttled_usec", 1e6, "throttled_time", 1e9,
               "container_cpu_cfs_throttled_seconds_total", "throttled_seconds_per_second", "throttled_seconds",
               "throttled_seconds"),
    CpuCounter("nr_bursts", "periods", "nr_bursts", 1, "nr_bursts", 1, None, None, None, None),
    CpuCounter("burst_seconds", "seconds", "burst_usec", 1e6, "burst_time", 1e9, None, None, None, None),
)
#: Canonical name -> counter.
COUNTER = {c.name: c for c in CPU_COUNTERS}
#: Canonical name -> cAdvisor metric, for the counters cAdvisor exports (usage, periods, throttled periods and time),
#: in the catalogue's order.
CADVISOR_COUNTERS = {c.name: c.cadvisor for c in CPU_COUNTERS if c.cadvisor}
#: cAdvisor's gauge of a container's CFS quota (us per period) and of its period (us).
CADVISOR_QUOTA = "container_spec_cpu_quota"
CADVISOR_PERIOD = "container_spec_cpu_period"
#: cAdvisor gauges of the limit -> what they are (``quota`` in us per ``period_us``, the samples' column).
CADVISOR_GAUGES = {CADVISOR_QUOTA: "quota", CADVISOR_PERIOD: "period_us"}

#: kube-state-metrics' gauges of a container's resource requests and of its limits (label ``resource``; CPU in cores).
KSM_REQUESTS = "kube_pod_container_resource_requests"
KSM_LIMITS = "kube_pod_container_resource_limits"
#: kube-state-metrics' labels of a pod (each Kubernetes label ``k`` as the label ``label_<k>``).
KSM_POD_LABELS = "kube_pod_labels"
#: kube-state-metrics' owner chain: metric -> the label naming the owned object (a pod, a ReplicaSet, a Job).
KSM_OWNERS = {"kube_pod_owner": "pod", "kube_replicaset_owner": "replicaset", "kube_job_owner": "job_name"}
KSM_POD_OWNER, KSM_REPLICASET_OWNER, KSM_JOB_OWNER = KSM_OWNERS
#: kube-state-metrics' series of a HorizontalPodAutoscaler: short name -> metric.
KSM_HPA = {k: "kube_horizontalpodautoscaler_" + k
           for k in ("info", "spec_target_metric", "spec_min_replicas", "spec_max_replicas", "status_current_replicas")}
#: A node's CPU count: cAdvisor's (the kubelet's) and kube-state-metrics' allocatable CPU (``resource="cpu"``).
NODE_CORES = "machine_cpu_cores"
NODE_ALLOCATABLE = "kube_node_status_allocatable"
#: The node-size metrics in the order they are read (the first one found wins).
NODE_SIZE = (NODE_CORES, NODE_ALLOCATABLE)
#: Every kube-state-metrics and node-size metric of the catalogue.
KUBERNETES_METRICS = (KSM_REQUESTS, KSM_LIMITS, KSM_POD_LABELS, *KSM_OWNERS, *KSM_HPA.values(), *NODE_SIZE)


def from_cadvisor(metric: str) -> CpuCounter:
    """The counter a cAdvisor metric is; ``KeyError`` for a metric that is not one."""
    for c in CPU_COUNTERS:
        if c.cadvisor == metric:
            return c
    raise KeyError(metric)


def from_field(field: str) -> CpuCounter:
    """The counter whose per-step rate is ``ContainerCPU``'s ``field``; ``KeyError`` for another name.

    >>> from_field("throttled_periods").cadvisor
    'container_cpu_cfs_throttled_periods_total'
    """
    for c in CPU_COUNTERS:
        if c.container_field == field:
            return c
    raise KeyError(field)
