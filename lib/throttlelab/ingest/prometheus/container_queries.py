"""The PromQL of the per-container CPU read: selectors, steps, and the instant queries beside the range ones.

For :mod:`.container_cpu`.  The instant queries: requests and limits (kube-state-metrics, else cAdvisor's
quota / period), the scrape interval, the nodes' sizes and the extra gauges of a window.
"""

from __future__ import annotations

import math
import re

from throttlelab.core.metrics import CADVISOR_PERIOD, CADVISOR_QUOTA, KSM_LIMITS, KSM_REQUESTS, NODE_SIZE
from throttlelab.ingest.prometheus.prometheus_answers import PrometheusError
from throttlelab.ingest.prometheus.prometheus_api import MAX_POINTS, PrometheusAPI, promql_string
from throttlelab.ingest.prometheus.range_series import BY, COUNTERS

POINTS_BUDGET = 2_500_000  # points per fine query (all containers), for the automatic step


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


def matchers(namespace: str | None, labels: dict[str, str]) -> str:
    parts = ['container!=""', 'container!="POD"']
    if namespace:
        parts.append(f"namespace={promql_string(namespace)}")
    parts += [f"{k}={promql_string(v)}" for k, v in labels.items()]
    return ",".join(parts)


def label_name(k: str) -> str:
    return "label_" + re.sub(r"[^A-Za-z0-9_]", "_", k)


def requests_and_limits(api: PrometheusAPI, namespace: str | None, m: str, w: str, end: float,
                         promql: list[str]) -> tuple[dict, dict, dict]:
    """Each container's latest CPU request and limit over ``w`` from kube-state-metrics, and (without it) the limit
    from cAdvisor's quota / period: ``(requests, limits, quotas)``, keyed by (namespace, pod, container)."""
    ksm = "," + f"namespace={promql_string(namespace)}" if namespace else ""
    req_q = f'max by ({BY}) (last_over_time({KSM_REQUESTS}{{resource="cpu"{ksm}}}[{w}]))'
    lim_q = f'max by ({BY}) (last_over_time({KSM_LIMITS}{{resource="cpu"{ksm}}}[{w}]))'
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


#: How a gauge is reduced over the window.
REDUCERS = ("last", "max")


def window_gauges(api: PrometheusAPI, gauges: dict[str, str], *, namespace: str | None, window: str, end: float,
                  promql: list[str]) -> dict[str, list[tuple[dict[str, str], float]]]:
    """``metric -> [(labels, value)]``: each series' ``last_over_time`` or ``max_over_time`` over ``window``
    (series absent from the server: an empty list)."""
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    ns = f"{{namespace={promql_string(namespace)}}}" if namespace else ""
    for metric, how in gauges.items():
        if how not in REDUCERS:
            raise ValueError(f"gauge {metric}: reducer {how!r}, expected one of {', '.join(REDUCERS)}")
        q = f"{how}_over_time({metric}{ns}[{window}])"
        promql.append(q)
        out[metric] = [({k: v for k, v in x["metric"].items() if k != "__name__"}, float(x["value"][1]))
                       for x in api.query(q, time=end)]
    return out


def scrape_interval(api: PrometheusAPI, m: str, end: float, promql: list[str]) -> float:
    """Median seconds between usage samples over the last hour (60 where it cannot tell)."""
    q = f"quantile(0.5, count_over_time({COUNTERS['usage']}{{{m}}}[1h]))"
    promql.append(q)
    res = api.query(q, time=end)
    per_hour = float(res[0]["value"][1]) if res else 0.0
    return 3600 / per_hour if per_hour >= 2 else 60.0


def node_cores(api: PrometheusAPI, present: dict, w: str, end: float, promql: list[str]):
    """``key -> CPU count of the container's node`` (``None`` when no node metric exists); ``present``: the usage
    series' ``(namespace, pod, container, node, instance)``."""
    sizes: dict[tuple, float] = {}
    cores, allocatable = NODE_SIZE
    for q in (f"max by (node, instance) (last_over_time({cores}[{w}]))",
              f'max by (node, instance) (last_over_time({allocatable}{{resource="cpu"}}[{w}]))'):
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
