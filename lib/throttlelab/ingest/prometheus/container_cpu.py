"""Per-container CPU usage, CFS throttling, requests and limits over a window, read from Prometheus.

The server computes each series' ``rate()`` at one step (so restarts and counter
resets are handled server-side); the client sums them by (namespace, pod, container)
with PromQL's semantics (:mod:`~throttlelab.ingest.prometheus.series_sum`: the
server's own aggregation costs it about three times the rate), giving one
fine-resolution series per container and counter, and the current request and
limit from kube-state-metrics (or, without it, from cAdvisor's
``container_spec_cpu_quota / container_spec_cpu_period``).

Metrics read: the catalogue's cAdvisor counters (:data:`throttlelab.core.metrics.CADVISOR_COUNTERS`: usage,
CFS periods, throttled periods and throttled time; :data:`COUNTERS` maps them to :class:`ContainerCPU`'s fields),
``kube_pod_container_resource_requests`` / ``_limits`` (``resource="cpu"``), ``kube_pod_labels``, and the
node's size: ``machine_cpu_cores`` (kubelet cAdvisor) or kube-state-metrics'
``kube_node_status_allocatable{resource="cpu"}``, joined to the container by its ``node`` or ``instance`` label
(the largest node where the join finds none; ``None`` where neither metric exists).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from throttlelab.core.metrics import CADVISOR_PERIOD, CADVISOR_QUOTA, COUNTER
from throttlelab.ingest.prometheus.prometheus_api import MAX_POINTS, PrometheusAPI, PrometheusError, format_duration
from throttlelab.ingest.prometheus.prometheus_owners import JOB_STEP_S, pod_regex, read_owners, short_lived_pods
from throttlelab.ingest.prometheus.query_split import query_groups, split_range, time_batches
from throttlelab.ingest.prometheus.series_sum import first_present, ratio, sum_by_key
from throttlelab.ingest.prometheus.workload_owners import OwnerTables

KEY = ("namespace", "pod", "container")
LIFE_BATCH = 1000  # Job pods per query that finds when they lived
POINTS_BUDGET = 2_500_000  # points per fine query (all containers), for the automatic step
BY = "namespace, pod, container"
#: :class:`ContainerCPU`'s rate fields -> the cAdvisor counter each is the rate of (from the catalogue; in the order
#: of the queries)
COUNTERS = {COUNTER[n].container_field: COUNTER[n].cadvisor
            for n in ("usage_seconds", "throttled_seconds", "nr_periods", "nr_throttled")}


#: The kubelet's ``/metrics/resource`` also exports ``container_cpu_usage_seconds_total`` per container (without
#: cAdvisor's ``id``, ``image`` and ``name``): where both are scraped, summing them doubled the usage.  A container's
#: usage is read from its series with an ``id`` label where it has one, else from whatever series it has.
USAGE = COUNTER["usage_seconds"].container_field
USAGE_COPY = "the kubelet's /metrics/resource copy of cAdvisor's usage"


class NoContainers(PrometheusError):
    """Nothing matched: no container usage in the namespace, selector and window asked for (one line)."""


@dataclass
class ContainerCPU:
    """One container's CPU over the window: per-step rates (NaN where there was no sample); each rate field is the
    rate of one counter of the catalogue (:data:`COUNTERS`, :func:`throttlelab.core.metrics.from_field`)."""

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


def _quote(v: str) -> str:
    return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_selector(text: str | None) -> dict[str, str]:
    """``app=web,tier=api`` -> ``{"app": "web", "tier": "api"}`` (one line error otherwise)."""
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        k, eq, v = part.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_./-]*", k.strip()):
            raise PrometheusError(f"--selector {text!r}: expected key=value[,key=value] (got {part!r})")
        out[k.strip()] = v.strip()
    return out


def choose_step(window_s: float, min_step_s: float = 60.0) -> float:
    """The finest whole-minute (or ``min_step_s``) step with at most ``MAX_POINTS`` points in the window.

    >>> choose_step(14 * 86400), choose_step(86400), choose_step(3600, 15)
    (120.0, 60.0, 15.0)
    """
    need = window_s / (MAX_POINTS - 1)
    unit = 60.0 if min_step_s >= 60 else float(min_step_s)
    return float(max(min_step_s, math.ceil(need / unit) * unit))


def smallest_step(window_s: float, scrape_s: float, n_series: float, min_step_s: float = 60.0) -> float:
    """The smallest automatic step: 4 scrape intervals (so ``rate()`` has samples in each), and all containers' fine
    points under :data:`POINTS_BUDGET` per query (JSON decoding costs the client about 0.25 s per million points).
    Where the budget sets a step under ten minutes (a large cluster), the step is five minutes: its 5-minute
    throttled ratios then come from the same answers, without two counters read again at five minutes (which cost
    more than five-minute steps do, up to ten-minute ones).

    >>> smallest_step(86400, 30, 500), smallest_step(86400, 30, 5000), smallest_step(86400, 30, 30000)
    (120, 300, 1080)
    """
    by_scrape = max(min_step_s, math.ceil(4 * scrape_s / 60) * 60)
    by_budget = math.ceil(window_s * n_series / POINTS_BUDGET / 60) * 60
    if by_scrape < by_budget < 600:
        by_budget = 300
    return max(by_scrape, by_budget)


def _matchers(namespace: str | None, labels: dict[str, str]) -> str:
    parts = ['container!=""', 'container!="POD"']
    if namespace:
        parts.append(f"namespace={_quote(namespace)}")
    parts += [f"{k}={_quote(v)}" for k, v in labels.items()]
    return ",".join(parts)


def _label_name(k: str) -> str:
    return "label_" + re.sub(r"[^A-Za-z0-9_]", "_", k)


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
        kpl = ",".join([*([f"namespace={_quote(namespace)}"] if namespace else []),
                        *(f"{_label_name(k)}={_quote(v)}" for k, v in sel.items())])
        q = f"max by (namespace, pod) (last_over_time(kube_pod_labels{{{kpl}}}[{format_duration(window_s)}]))"
        promql.append(q)
        pods = set(api.query_values(q, time=end, keys=("namespace", "pod")))
        if not pods:
            pods, direct = None, sel
    m = _matchers(namespace, direct)
    scrape = None
    if step_s is None:
        scrape = _scrape_interval(api, m, end, promql)
        n_q = f"count(count by ({BY}) ({COUNTERS['usage']}{{{m}}}))"
        promql.append(n_q)
        res = api.query(n_q, time=end)
        n_series = float(res[0]["value"][1]) if res else 1.0
        min_step_s = smallest_step(window_s, scrape, n_series, min_step_s)
    step = step_s or choose_step(window_s, min_step_s)
    w = format_duration(window_s)
    # split by namespace and time: no query evaluates more than QUERY_POINTS points (see query_split)
    # every usage series of the window once, by container and node: the series per namespace (for the split), the
    # containers present (for the Job pods) and their nodes (for the node sizes)
    q = f"count by ({BY}, node, instance) (last_over_time({COUNTERS['usage']}{{{m}}}[{w}]))"
    promql.append(q)
    # the instant queries need nothing from the range queries: the server answers them while the client decodes
    # (the owners first: they name the Job pods, which the window's step leaves out)
    from concurrent.futures import ThreadPoolExecutor

    side_promql: list[str] = []
    with ThreadPoolExecutor(max_workers=1) as side:
        owners_f = side.submit(read_owners, api, namespace=namespace, window=w, end=end, promql=side_promql)
        present = api.query_values(q, time=end, keys=(*KEY, "node", "instance"))
        ksm_f = side.submit(_requests_and_limits, api, namespace, m, w, end, side_promql)
        node_f = side.submit(_node_cores, api, present, w, end, side_promql)
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
        series = _range_series(api, m, start, end, step, format_duration(step), promql, groups,
                               pods=_other_pods(groups, every, brief))
        if brief:
            scrape = scrape or _scrape_interval(api, m, end, promql)
            fine = _job_pod_series(api, m, brief, start, end, scrape, promql)
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
        five = _range_series(api, m, start, end, 300.0, "5m", promql, five_groups,
                             names=("throttled_periods", "periods"), pods=_other_pods(five_groups, every, brief))
        ratios5 = {k: v for k, (_, v) in ratio(five["throttled_periods"], five["periods"], start + 300, 300.0).items()}
    out = []
    grids = {st: np.arange(start + st, end + st / 2, st) for st in set(steps.values())}
    for key in sorted(keys):
        st = steps[key]
        # popped: the answers are freed as the containers are built
        grid, arrays, r5 = _pod_life({name: series[name].pop(key, (np.empty(0), np.empty(0))) for name in COUNTERS},
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


def _requests_and_limits(api: PrometheusAPI, namespace: str | None, m: str, w: str, end: float,
                         promql: list[str]) -> tuple[dict, dict, dict]:
    """Each container's latest CPU request and limit over ``w`` from kube-state-metrics, and (without it) the limit
    from cAdvisor's quota / period: ``(requests, limits, quotas)``, keyed by (namespace, pod, container)."""
    ksm = "," + f"namespace={_quote(namespace)}" if namespace else ""
    req_q = f'max by ({BY}) (last_over_time(kube_pod_container_resource_requests{{resource="cpu"{ksm}}}[{w}]))'
    lim_q = f'max by ({BY}) (last_over_time(kube_pod_container_resource_limits{{resource="cpu"{ksm}}}[{w}]))'
    quota_q = (f"max by ({BY}) ((last_over_time({CADVISOR_QUOTA}{{{m}}}[{w}]) > 0)"
               f" / last_over_time({CADVISOR_PERIOD}{{{m}}}[{w}]))")
    promql += [req_q, lim_q]
    requests = api.query_values(req_q, time=end)
    limits = api.query_values(lim_q, time=end)
    quotas = {}
    if not requests and not limits:  # no kube-state-metrics: cAdvisor's quota / period
        promql.append(quota_q)
        quotas = api.query_values(quota_q, time=end)
    return requests, limits, quotas


def quantile_95(values: np.ndarray) -> float:
    """``np.quantile(values, 0.95)`` (linear, the same arithmetic) without its per-call overhead: one per container.

    >>> v = np.array([0.3, 0.0, 0.1, 0.2]); quantile_95(v) == float(np.quantile(v, 0.95))
    True
    """
    v = np.sort(values)
    if np.isnan(v[-1]):
        return float("nan")
    at = 0.95 * (len(v) - 1)
    lo = int(np.floor(at))
    hi = min(lo + 1, len(v) - 1)
    t = at - lo
    a, b = v[lo], v[hi]
    d = b - a
    return float(b - d * (1 - t) if t >= 0.5 else a + d * t)


#: How a gauge is reduced over the window.
REDUCERS = ("last", "max")


def window_gauges(api: PrometheusAPI, gauges: dict[str, str], *, namespace: str | None, window: str, end: float,
                  promql: list[str]) -> dict[str, list[tuple[dict[str, str], float]]]:
    """``metric -> [(labels, value)]``: each series' ``last_over_time`` or ``max_over_time`` over ``window``
    (series absent from the server: an empty list)."""
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    ns = f"{{namespace={_quote(namespace)}}}" if namespace else ""
    for metric, how in gauges.items():
        if how not in REDUCERS:
            raise ValueError(f"gauge {metric}: reducer {how!r}, expected one of {', '.join(REDUCERS)}")
        q = f"{how}_over_time({metric}{ns}[{window}])"
        promql.append(q)
        out[metric] = [({k: v for k, v in x["metric"].items() if k != "__name__"}, float(x["value"][1]))
                       for x in api.query(q, time=end)]
    return out


def _scrape_interval(api: PrometheusAPI, m: str, end: float, promql: list[str]) -> float:
    """Median seconds between usage samples over the last hour (60 where it cannot tell)."""
    q = f"quantile(0.5, count_over_time({COUNTERS['usage']}{{{m}}}[1h]))"
    promql.append(q)
    res = api.query(q, time=end)
    per_hour = float(res[0]["value"][1]) if res else 0.0
    return 3600 / per_hour if per_hour >= 2 else 60.0


def _range_series(api: PrometheusAPI, m: str, start: float, end: float, step: float, rng: str, promql: list[str],
                  groups=None, names=tuple(COUNTERS), pods: dict | None = None):
    """``counter name -> {key: (times, rates)}``: each counter's (of ``names``) ``rate()`` over ``rng`` at ``step``
    from ``start + step``, summed by container, one query per namespace group and time piece (``groups``: see
    :func:`~throttlelab.ingest.prometheus.query_split.query_groups`; ``None``: all at once; ``[]``: none), and
    ``pods``: a group's namespaces -> more matchers for its queries (``,pod=~"..."``)."""
    from concurrent.futures import ThreadPoolExecutor

    def one(job):
        name, group, part = job
        # split_range puts the namespace group's matcher at {ns}; raw rate() series, summed here (series_sum)
        sel = f"{{{m}{part}{(pods or {}).get(group[0], '')},{{ns}}}}"
        asked: list[str] = []
        found = split_range(api, f"rate({COUNTERS[name]}{sel}[{rng}])", [group], start + step, end, step, asked)
        return name, part, asked, sum_by_key(found, start + step, step)

    series: dict[str, dict[tuple, tuple[np.ndarray, np.ndarray]]] = {name: {} for name in names}
    # usage: cAdvisor's series (with the cgroup's id) where a container has them at a step, else whatever it has
    # (``sum by (...) (rate(x{id!=""}) or on (...) rate(x{id=""}))``; see USAGE_COPY)
    parts = {name: (',id!=""', ',id=""') if name == USAGE else ("",) for name in names}
    jobs = [(name, g, part) for g in ([(None, MAX_POINTS)] if groups is None else groups) for name in names
            for part in parts[name]]
    copies: dict[tuple, dict] = {}
    with ThreadPoolExecutor(max_workers=2) as pool:  # the server evaluates one query while the client decodes another
        for name, part, asked, result in pool.map(one, jobs):
            promql += asked
            if part == ',id=""':
                copies.update(result)
            else:
                series[name].update(result)
    if USAGE in series:
        series[USAGE] = first_present(series[USAGE], copies, start + step, step)
    return series


def _other_pods(groups, every, brief: set[tuple[str, str]]) -> dict:
    """Each query group's namespaces -> a matcher naming its pods other than the Job pods (``brief``): a set of names,
    which the server looks up in its index one by one (none where there are no Job pods)."""
    if not brief:
        return {}
    return {nss: "," + pod_regex({(k[0], k[1]) for k in every if (k[0], k[1]) not in brief
                                  and (nss is None or k[0] in nss)}) for nss, _ in groups}


def _job_pod_series(api: PrometheusAPI, m: str, brief: set[tuple[str, str]], start: float, end: float, scrape: float,
                    promql: list[str]) -> dict:
    """``counter name -> {key: (times, rates)}`` of Job pods (``brief``) at :data:`JOB_STEP_S`, each read over its
    own life: the hours in which it has usage samples (``count_over_time`` at an hour's step, in batches of pods),
    the pods then packed into queries by time (they live minutes to hours of a window of days)."""
    hour = 3600.0
    spans: dict[tuple[str, str], tuple[float, float] | None] = dict.fromkeys(brief)
    names = sorted(brief)
    for i in range(0, len(names), LIFE_BATCH):
        batch = set(names[i:i + LIFE_BATCH])
        q = f"count_over_time({COUNTERS['usage']}{{{m},{pod_regex(batch)}}}[1h])"
        promql.append(q)
        for sr in api.query_range(q, start + hour, max(end, start + hour), hour):
            k = (sr.labels.get("namespace", ""), sr.labels.get("pod", ""))
            if k in batch and len(sr.times):
                old = spans[k] or (math.inf, -math.inf)
                spans[k] = (min(old[0], float(sr.times[0]) - hour), max(old[1], float(sr.times[-1])))
    rng = format_duration(max(JOB_STEP_S, math.ceil(3 * scrape)))
    fine = {name: {} for name in COUNTERS}
    for pods_in, t0, t1 in time_batches(spans, start, end, JOB_STEP_S, pad=JOB_STEP_S):
        part = _range_series(api, f"{m},{pod_regex(pods_in)}", t0, t1, JOB_STEP_S, rng, promql)
        for name in COUNTERS:
            fine[name].update({k: v for k, v in part[name].items() if (k[0], k[1]) in pods_in})
    return fine


def _node_cores(api: PrometheusAPI, present: dict, w: str, end: float, promql: list[str]):
    """``key -> CPU count of the container's node`` (``None`` when no node metric exists); ``present``: the usage
    series' ``(namespace, pod, container, node, instance)``."""
    sizes: dict[tuple, float] = {}
    for q in (f"max by (node, instance) (last_over_time(machine_cpu_cores[{w}]))",
              f'max by (node, instance) (last_over_time(kube_node_status_allocatable{{resource="cpu"}}[{w}]))'):
        promql.append(q)
        sizes = {k: v for k, v in api.query_values(q, time=end, keys=("node", "instance")).items() if v > 0}
        if sizes:
            break
    if not sizes:
        return lambda key: None
    largest = max(sizes.values())
    if len(set(sizes.values())) == 1:  # one size (or one node): no join needed
        return lambda key: largest
    by_node = {n: v for (n, _), v in sizes.items() if n}
    by_inst = {i: v for (_, i), v in sizes.items() if i}
    where: dict[tuple, float] = {}
    for (*key, node, inst) in present:
        size = by_node.get(node) or by_inst.get(inst)
        if size:
            where[tuple(key)] = max(where.get(tuple(key), 0.0), size)
    return lambda key: where.get(key, largest)


def _pod_life(points: dict, grid: np.ndarray, st: float) -> tuple[np.ndarray, dict, np.ndarray | None]:
    """One container's counters (``name -> (times, rates)``) on the window's ``grid`` of steps ``st``, kept only over
    its pod's life (from its first to its last finite rate; a Job pod lives minutes of a long window), and its
    5-minute throttled ratios (:func:`ratios_5m` over the window's whole 5-minute blocks): ``(grid, arrays, ratios)``.
    Only the blocks around its points are laid out, which gives what laying out the whole window gives.

    >>> g = 60.0 * np.arange(1, 21)
    >>> t, a, r = _pod_life({"usage": (g[6:9], np.array([0.1, 0.2, np.nan])), "periods": (g[5:9], np.full(4, 10.0)),
    ...                      "throttled_periods": (g[5:9], np.array([0.0, 5.0, 10.0, 5.0]))}, g, 60.0)
    >>> t.tolist(), a["usage"].tolist(), r.tolist()
    ([360.0, 420.0, 480.0, 540.0], [nan, 0.1, 0.2, nan], [0.5])
    """
    n = len(grid)
    k = int(round(300 / st))
    idx = {name: np.clip(np.rint((t - grid[0]) / st).astype(np.int64), 0, n - 1) for name, (t, _) in points.items()}
    placed = [i for i in idx.values() if len(i)]
    finite = [i[np.isfinite(points[name][1])] for name, i in idx.items()]
    finite = [i for i in finite if len(i)]
    if not finite:
        return grid[:0].copy(), {name: np.empty(0) for name in points}, None
    whole = n // k * k  # the 5-minute blocks of the window
    a0 = min(int(i.min()) for i in placed) // k * k
    a1 = max(int(i.max()) for i in placed) + 1
    a1 = max(a1, min(whole, -(-a1 // k) * k))
    arrays = {}
    for name, (_, v) in points.items():
        arrays[name] = np.full(a1 - a0, np.nan)
        arrays[name][idx[name] - a0] = v
    r5 = ratios_5m({name: a[:max(0, min(a1, whole) - a0)] for name, a in arrays.items()}, st)
    lo = min(int(i.min()) for i in finite)
    hi = max(int(i.max()) for i in finite)
    return (grid[lo:hi + 1].copy(), {name: a[lo - a0:hi - a0 + 1].copy() for name, a in arrays.items()}, r5)


def ratios_5m(arrays: dict[str, np.ndarray], step: float) -> np.ndarray | None:
    """The throttled-period ratio of each 5-minute window with periods, from steps that divide 5 minutes
    (``None`` without CFS counters)."""
    k = int(round(300 / step))
    per, thr = arrays["periods"], arrays["throttled_periods"]
    n = len(per) // k * k
    if n == 0 or not np.isfinite(per).any():
        return None
    p = np.nansum(per[:n].reshape(-1, k), 1)
    t = np.nansum(thr[:n].reshape(-1, k), 1)
    ok = p > 0
    return t[ok] / p[ok]
