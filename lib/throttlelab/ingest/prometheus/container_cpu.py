"""Per-container CPU usage, CFS throttling, requests and limits over a window, read from Prometheus.

The server computes each series' ``rate()`` at one step (so restarts and counter
resets are handled server-side); the client sums them by (namespace, pod, container)
with PromQL's semantics (:mod:`~throttlelab.ingest.prometheus.series_sum`: the
server's own aggregation costs it about three times the rate), giving one
fine-resolution series per container and counter, and the current request and
limit from kube-state-metrics (or, without it, from cAdvisor's
``container_spec_cpu_quota / container_spec_cpu_period``).

Metrics read: the catalogue's cAdvisor counters (:data:`throttlelab.core.metrics.CADVISOR_COUNTERS`: usage,
CFS periods, throttled periods and throttled time; :data:`~throttlelab.ingest.prometheus.range_series.COUNTERS` maps them to
:class:`ContainerCPU`'s fields),
``kube_pod_container_resource_requests`` / ``_limits`` (``resource="cpu"``), ``kube_pod_labels``, and the
node's size: ``machine_cpu_cores`` (kubelet cAdvisor) or kube-state-metrics'
``kube_node_status_allocatable{resource="cpu"}``, joined to the container by its ``node`` or ``instance`` label
(the largest node where the join finds none; ``None`` where neither metric exists).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from throttlelab.core.metrics import KSM_POD_LABELS
from throttlelab.ingest.prometheus.container_queries import (
    choose_step, label_name, matchers, node_cores, parse_selector, requests_and_limits, scrape_interval, smallest_step,
    window_gauges,
)
from throttlelab.ingest.prometheus.pod_life import pod_life, quantile_95
from throttlelab.ingest.prometheus.prometheus_answers import PrometheusError
from throttlelab.ingest.prometheus.prometheus_api import PrometheusAPI, format_duration, promql_string
from throttlelab.ingest.prometheus.prometheus_owners import JOB_STEP_S, read_owners, short_lived_pods
from throttlelab.ingest.prometheus.query_split import query_groups
from throttlelab.ingest.prometheus.range_series import BY, COUNTERS, KEY, job_pod_series, other_pods, range_series
from throttlelab.ingest.prometheus.series_sum import ratio
from throttlelab.ingest.prometheus.workload_owners import OwnerTables

class NoContainers(PrometheusError):
    """Nothing matched: no container usage in the namespace, selector and window asked for (one line)."""


@dataclass
class ContainerCPU:
    """One container's CPU over the window: per-step rates (NaN where there was no sample); each rate field is the
    rate of one counter of the catalogue (:data:`~throttlelab.ingest.prometheus.range_series.COUNTERS`, :func:`throttlelab.core.metrics.from_field`)."""

    namespace: str
    pod: str
    container: str
    request_cores: float | None
    limit_cores: float | None
    limit_source: str  # "kube-state-metrics", "cadvisor" or "none"
    step_s: float
    times: np.ndarray  # unix s, end of each step (from Prometheus: the steps from its first to its last point)
    usage: np.ndarray  # cores
    throttled_seconds: np.ndarray  # throttled (unserved) cores
    periods: np.ndarray  # CFS periods per second
    throttled_periods: np.ndarray  # throttled periods per second
    throttled_ratio_p95_5m: float | None = None
    node_cores: float | None = None  # CPU count of its node (None: unknown)
    throttled_ratios_5m: np.ndarray | None = None  # its throttled ratio per 5 minutes (pooled across a workload's pods)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.namespace, self.pod, self.container)


@dataclass
class Fetch:
    """What :func:`fetch_containers` read, and how."""

    containers: list[ContainerCPU]
    start: float
    end: float
    step_s: float
    queries: int
    promql: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # said once to the reader (how owners were found, missing metrics)
    owners: OwnerTables = field(default_factory=OwnerTables)  # kube-state-metrics' owner chain (empty: absent)
    workloads: list = field(default_factory=list)  # the containers pooled by workload (ingest.workload_cpu)
    #: ``metric -> [(labels, value), ...]``: every series of the extra gauges asked for (runtime threads, HPAs),
    #: its last (or largest) value over the window
    gauges: dict[str, list[tuple[dict[str, str], float]]] = field(default_factory=dict)

    @property
    def observed_s(self) -> float:
        """Seconds from the first to the last step with usage in any container (the window actually observed,
        which is shorter than the requested one when the data are)."""
        first, last = math.inf, -math.inf
        for c in self.containers:
            have = np.flatnonzero(np.isfinite(c.usage))
            if len(have):
                first = min(first, c.times[have[0]] - c.step_s)
                last = max(last, c.times[have[-1]])
        return max(0.0, last - first) if last > first else 0.0


def fetch_containers(api: PrometheusAPI, *, window_s: float, end: float | None = None, namespace: str | None = None,
                     selector: str | None = None, step_s: float | None = None, min_step_s: float = 60.0,
                     gauges: dict[str, str] | None = None) -> Fetch:
    """Read every matching container's CPU series over ``[end - window_s, end]``.

    ``gauges`` (``metric -> "last" | "max"``) also reads every series of those metrics (in the namespace) over the
    window, its last or largest value (``Fetch.gauges``): an application's runtime metrics, kube-state-metrics' HPAs.

    ``selector`` (``k=v,...``) selects pods by their Kubernetes labels through ``kube_pod_labels``
    (``label_<k>``); where kube-state-metrics exports no such label, ``k=v`` matches the cAdvisor series' own labels.
    Raises :class:`PrometheusError` when nothing matches.
    """
    q0 = api.queries
    if end is None:
        end = api.server_time()
    start = end - window_s
    sel = parse_selector(selector)
    promql: list[str] = []
    pods: set[tuple[str, str]] | None = None
    direct: dict[str, str] = {}
    if sel:
        kpl = ",".join([*([f"namespace={promql_string(namespace)}"] if namespace else []),
                        *(f"{label_name(k)}={promql_string(v)}" for k, v in sel.items())])
        q = f"max by (namespace, pod) (last_over_time({KSM_POD_LABELS}{{{kpl}}}[{format_duration(window_s)}]))"
        promql.append(q)
        pods = set(api.query_values(q, time=end, keys=("namespace", "pod")))
        if not pods:
            pods, direct = None, sel
    m = matchers(namespace, direct)
    scrape = None
    if step_s is None:
        scrape = scrape_interval(api, m, end, promql)
        n_q = f"count(count by ({BY}) ({COUNTERS['usage']}{{{m}}}))"
        promql.append(n_q)
        res = api.query(n_q, time=end)
        n_series = float(res[0]["value"][1]) if res else 1.0
        min_step_s = smallest_step(window_s, scrape, n_series, min_step_s)
    step = step_s or choose_step(window_s, min_step_s)
    w = format_duration(window_s)
    # split by namespace and time: no query evaluates more than QUERY_POINTS points (see query_split)
    # every usage series of the window once, by container and node, from the server's index (the series API reads
    # no samples: 0.2-0.5 s where last_over_time over the window took 1.7-2.6 s): the series per namespace (for the
    # split), the containers present (for the Job pods) and their nodes (for the node sizes)
    q = f"{COUNTERS['usage']}{{{m}}}"
    promql.append(q)
    # the instant queries need nothing from the range queries: the server answers them while the client decodes
    # (the owners first: they name the Job pods, which the window's step leaves out)
    from concurrent.futures import ThreadPoolExecutor

    side_promql: list[str] = []
    with ThreadPoolExecutor(max_workers=1) as side:
        owners_f = side.submit(read_owners, api, namespace=namespace, window=w, end=end, promql=side_promql)
        present = api.series_keys(q, start, end, (*KEY, "node", "instance"))
        ksm_f = side.submit(requests_and_limits, api, namespace, m, w, end, side_promql)
        node_f = side.submit(node_cores, api, present, w, end, side_promql)
        gauges_f = side.submit(window_gauges, api, gauges or {}, namespace=namespace, window=w, end=end,
                               promql=side_promql)
        every = {k[:3] for k in present if pods is None or (k[0], k[1]) in pods}
        brief: set[tuple[str, str]] = set()
        if step > JOB_STEP_S:  # Job pods live for minutes: read at a minute over their own lives, not at the step
            brief = short_lived_pods({(k[0], k[1]) for k in every}, owners_f.result())
        counts: dict[str, int] = {}
        for k, n in present.items():
            if (k[0], k[1]) not in brief:
                counts[k[0]] = counts.get(k[0], 0) + int(n)
        groups = query_groups(counts, int(window_s // step) + 1)
        if len(groups) == 1:  # all namespaces in one query: no matcher needed
            groups = [(None, groups[0][1])]
        series = range_series(api, m, start, end, step, format_duration(step), promql, groups,
                               pods=other_pods(groups, every, brief))
        if brief:
            scrape = scrape or scrape_interval(api, m, end, promql)
            fine = job_pod_series(api, m, brief, start, end, scrape, promql)
            for name in COUNTERS:
                series[name].update(fine[name])
        owners, (requests, limits, quotas), node_of, extra = (f.result() for f in (owners_f, ksm_f, node_f, gauges_f))
    promql += side_promql
    keys = set(series["usage"])
    if pods is not None:
        keys = {k for k in keys if (k[0], k[1]) in pods}
    steps = {k: JOB_STEP_S if (k[0], k[1]) in brief else step for k in keys}
    if not keys:
        where = f"namespace {namespace!r}" if namespace else "any namespace"
        others = ""
        if namespace:
            q = f'count by (namespace) (last_over_time({COUNTERS["usage"]}{{container!="",container!="POD"}}[{w}]))'
            promql.append(q)
            others = "; namespaces with containers: " + (
                ", ".join(sorted(k[0] for k in api.query_values(q, time=end, keys=("namespace",)))[:10]) or "none")
        raise NoContainers(f"{api.url}: no {COUNTERS['usage']} series in {where}"
                           f"{' with ' + selector if selector else ''} over the last {w}{others}")
    ratios5 = None
    if 300 % step != 0:  # 5-minute windows are not whole steps: let the server compute them
        # ``sum by (...) (rate(throttled[5m])) / sum by (...) (rate(periods[5m]) > 0)``, split as the fine queries
        five_groups = query_groups(counts, int(window_s // 300))
        five_groups = five_groups if len(five_groups) != 1 else [(None, five_groups[0][1])]
        five = range_series(api, m, start, end, 300.0, "5m", promql, five_groups,
                             names=("throttled_periods", "periods"), pods=other_pods(five_groups, every, brief))
        ratios5 = {k: v for k, (_, v) in ratio(five["throttled_periods"], five["periods"], start + 300, 300.0).items()}
    out = []
    grids = {st: np.arange(start + st, end + st / 2, st) for st in set(steps.values())}
    for key in sorted(keys):
        st = steps[key]
        # popped: the answers are freed as the containers are built
        grid, arrays, r5 = pod_life({name: series[name].pop(key, (np.empty(0), np.empty(0))) for name in COUNTERS},
                                     grids[st], st)
        if ratios5 is not None and st == step:
            r5 = ratios5.get(key, np.empty(0))
        if key in limits:
            limit, source = limits[key], "kube-state-metrics"
        elif key in quotas:
            limit, source = quotas[key], "cadvisor"
        else:
            limit, source = None, "none"
        out.append(ContainerCPU(*key, request_cores=requests.get(key), limit_cores=limit, limit_source=source,
                                step_s=st, times=grid, usage=arrays["usage"],
                                throttled_seconds=arrays["throttled_seconds"], periods=arrays["periods"],
                                throttled_periods=arrays["throttled_periods"],
                                throttled_ratio_p95_5m=quantile_95(r5) if r5 is not None and len(r5) else None,
                                node_cores=node_of(key), throttled_ratios_5m=r5))
    return Fetch(out, start, end, step, api.queries - q0, promql, owners=owners, gauges=extra)


