"""What right-sizing recommends for one workload container, and the settings it recommends with."""

from __future__ import annotations

from dataclasses import dataclass

from throttlelab.analysis.rightsizing.hpa import HpaScaling
from throttlelab.analysis.rightsizing.runtime_advice import RuntimeAdvice
from throttlelab.results import ConfidenceInterval

CENSORED_RATIO = 0.5  # throttled in more periods than this: demand above the limit is not observed
DEFAULT_PERIOD_S = 0.1
#: The numbers a "too little data" record leaves empty.
NUMBERS = ("recommended_request_cores", "recommended_request_low", "recommended_request_high",
           "recommended_limit_cores", "recommended_limit_low", "recommended_limit_high", "usage_p50_cores",
           "usage_p95_cores", "usage_p99_cores", "usage_max_cores", "demand_p95_cores", "throttled_ratio",
           "throttled_seconds_per_hour", "predicted_throttled_ratio", "tail_exponent", "krr_request_cores",
           "krr_limit_cores", "vpa_request_cores", "vpa_limit_cores")


@dataclass(frozen=True)
class Rightsizing:
    """One workload container's numbers, recommendation and reason.

    Attributes
    ----------
    namespace, workload_kind, workload, container
        Which container of which workload (``workload_kind`` Deployment, StatefulSet, DaemonSet, CronJob, Job,
        ReplicaSet, Pod, or ``DaemonSet or Job`` where a pod's name could not tell).
    pod
        Its newest pod (the latest pod template's).
    pods, pod_hours
        Pods seen in the window and the hours they ran, summed.
    decision
        ``raise limit``, ``lower limit``, ``keep``, ``set limit``, ``no limit (policy)``, ``keep (policy)`` or
        ``too little data``.
    current_request_cores, current_limit_cores
        What the container has now (``null``: none set).
    recommended_request_cores, recommended_request_low, recommended_request_high
        Recommended request with its 90% block-bootstrap interval.
    recommended_limit_cores, recommended_limit_low, recommended_limit_high
        Recommended limit (``null``: no limit) with its 90% block-bootstrap interval.
    usage_p50_cores, usage_p95_cores, usage_p99_cores, usage_max_cores
        Usage percentiles over the window (what KRR and VPA see).
    demand_p95_cores
        95th percentile of the estimated demand (usage with the throttled time put back).
    throttled_ratio, throttled_ratio_p95_5m, throttled_seconds_per_hour
        Share of CFS periods throttled (at the current limit over the pods that had it; 95th percentile of
        5-minute windows of every pod) and throttled time per pod-hour.
    predicted_throttled_ratio
        Throttled-period ratio predicted at the recommended limit.
    tail_exponent, limit_basis
        The power of the limit by which the throttled ratio falls near the target (``null`` where none was read:
        censored, quiet or no limit), and how the limit was found: ``two limits``, ``tail``, ``censored``, ``quiet``
        or ``no limit`` (:mod:`~throttlelab.analysis.rightsizing.kernel_limits`).
    krr_request_cores, krr_limit_cores, vpa_request_cores, vpa_limit_cores
        What KRR's and VPA's rules would recommend from the same usage.
    hours_observed, steps, step_s
        Hours from its first to its last sample, (pod, step) samples and the step between them.
    node_cores
        CPU count of the container's node (``null``: unknown, recommendations uncapped); nothing recommended exceeds it.
    demand_censored
        Throttled in most periods: demand above the current limit was not observed, the recommendation is a
        first round (raised so that the next window sees the demand; run again over it) and its intervals run from what was observed (the limit: just above the current one; the
        request: the p95 of usage) to the node's size (``null`` high end: open).
    reason
        One sentence a reader can act on.
    runtime_advice
        What the container's runtime metric (``go_sched_gomaxprocs_threads``, ``system_cpu_count``) says about its
        threads under the recommended limit (``null``: no runtime metric joined the container).
    container_threads_max
        Largest cAdvisor ``container_threads`` of its pods in the window (every OS thread; reported, never advised
        from; ``null``: not exported).
    hpa
        The HorizontalPodAutoscaler scaling its workload on CPU utilisation and the replicas the recommended requests
        imply (``null``: none).
    """

    namespace: str
    workload_kind: str
    workload: str
    container: str
    pod: str
    pods: int
    pod_hours: float
    decision: str  # raise limit, lower limit, keep, set limit, no limit (policy), too little data
    current_request_cores: float | None
    current_limit_cores: float | None
    recommended_request_cores: float | None
    recommended_request_low: float | None
    recommended_request_high: float | None
    recommended_limit_cores: float | None  # None: no limit
    recommended_limit_low: float | None
    recommended_limit_high: float | None
    usage_p50_cores: float | None
    usage_p95_cores: float | None
    usage_p99_cores: float | None
    usage_max_cores: float | None
    demand_p95_cores: float | None
    throttled_ratio: float | None
    throttled_ratio_p95_5m: float | None
    throttled_seconds_per_hour: float | None
    predicted_throttled_ratio: float | None  # at the recommended limit
    tail_exponent: float | None
    limit_basis: str
    krr_request_cores: float | None
    krr_limit_cores: float | None
    vpa_request_cores: float | None
    vpa_limit_cores: float | None
    hours_observed: float
    steps: int
    step_s: float
    node_cores: float | None
    demand_censored: bool
    reason: str
    runtime_advice: RuntimeAdvice | None = None
    container_threads_max: int | None = None
    hpa: HpaScaling | None = None

    def confidence_interval(self) -> ConfidenceInterval:
        """Interval of the recommended limit (90%, block bootstrap)."""
        return ConfidenceInterval(self.recommended_limit_low, self.recommended_limit_high)


@dataclass(frozen=True)
class Settings:
    """Knobs of :func:`rightsize` (defaults are the command's)."""

    throttle_target: float = 0.05
    limit_policy: str = "target"  # target | none | keep
    min_history_s: float = 86400.0
    min_coverage: float = 0.5
    resamples: int = 200
    level: float = 0.90
    seed: int = 0
    period_s: float = DEFAULT_PERIOD_S
    censored_ratio: float = CENSORED_RATIO  # throttled in more periods than this: demand treated as censored
