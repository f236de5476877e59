"""Each CPU counter's ``rate()`` series over a window, read from Prometheus and summed by container."""

from __future__ import annotations

import math

import numpy as np

from throttlelab.core.metrics import COUNTER
from throttlelab.ingest.prometheus.prometheus_api import MAX_POINTS, PrometheusAPI, format_duration
from throttlelab.ingest.prometheus.prometheus_owners import JOB_STEP_S, pod_regex
from throttlelab.ingest.prometheus.query_split import split_range, time_batches
from throttlelab.ingest.prometheus.series_sum import first_present, sum_by_key

KEY = ("namespace", "pod", "container")
BY = "namespace, pod, container"
LIFE_BATCH = 1000  # Job pods per query that finds when they lived
#: :class:`~throttlelab.ingest.prometheus.container_cpu.ContainerCPU`'s rate fields -> the cAdvisor counter each is
#: the rate of (from the catalogue; in the order of the queries)
COUNTERS = {COUNTER[n].container_field: COUNTER[n].cadvisor
            for n in ("usage_seconds", "throttled_seconds", "nr_periods", "nr_throttled")}


#: The kubelet's ``/metrics/resource`` also exports ``container_cpu_usage_seconds_total`` per container (without
#: cAdvisor's ``id``, ``image`` and ``name``): where both are scraped, summing them doubled the usage.  A container's
#: usage is read from its series with an ``id`` label where it has one, else from whatever series it has.
USAGE = COUNTER["usage_seconds"].container_field
USAGE_COPY = "the kubelet's /metrics/resource copy of cAdvisor's usage"


def range_series(api: PrometheusAPI, m: str, start: float, end: float, step: float, rng: str, promql: list[str],
                  groups=None, names=tuple(COUNTERS), pods: dict | None = None):
    """``counter name -> {key: (times, rates)}``: each counter's (of ``names``) ``rate()`` over ``rng`` at ``step``
    (computed by the server, which handles restarts and counter resets; summed here with PromQL's semantics by
    :mod:`~throttlelab.ingest.prometheus.series_sum`: the server's own aggregation costs it about three times the rate)
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


def other_pods(groups, every, brief: set[tuple[str, str]]) -> dict:
    """Each query group's namespaces -> a matcher naming its pods other than the Job pods (``brief``): a set of names,
    which the server looks up in its index one by one (none where there are no Job pods)."""
    if not brief:
        return {}
    return {nss: "," + pod_regex({(k[0], k[1]) for k in every if (k[0], k[1]) not in brief
                                  and (nss is None or k[0] in nss)}) for nss, _ in groups}


def job_pod_series(api: PrometheusAPI, m: str, brief: set[tuple[str, str]], start: float, end: float, scrape: float,
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
        part = range_series(api, f"{m},{pod_regex(pods_in)}", t0, t1, JOB_STEP_S, rng, promql)
        for name in COUNTERS:
            fine[name].update({k: v for k, v in part[name].items() if (k[0], k[1]) in pods_in})
    return fine
