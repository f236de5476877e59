"""A run pod's CPU counters as cAdvisor saw them, through Prometheus (the kubelet's ``/metrics/cadvisor``).

The second opinion beside the pod's own cgroup (read by the in-pod sampler):
after a run, :func:`pod_counters` asks Prometheus for the largest value each
cumulative counter of the run's container reached while it ran.  Counters of a
fresh container start at zero, so that maximum is what cAdvisor saw of the run;
the run pod lingers idle for :data:`LINGER_S` after its workload so the last
scrape holds the final counters (an idle cgroup's counters do not move).
:func:`agreement` compares the throttled ratios.

Example
-------
>>> agreement({"nr_periods": 100, "nr_throttled": 90}, {"nr_periods": 80, "nr_throttled": 70})
{'cgroup_ratio': 0.9, 'cadvisor_ratio': 0.875, 'difference': -0.025}
"""

from __future__ import annotations

import json
import os
import urllib.parse
import urllib.request
from typing import Any

from throttlelab.core.metrics import COUNTER, CPU_COUNTERS

#: cAdvisor metric -> the runs-table column of its total (in the order the totals are reported)
METRICS = {COUNTER[n].cadvisor: COUNTER[n].run_column for n in ("nr_periods", "nr_throttled", "throttled_seconds",
                                                                   "usage_seconds")}
_INTS = {c.run_column for c in CPU_COUNTERS if c.integer and c.run_column}
#: seconds a run pod stays idle after its workload when a Prometheus is configured, so that
#: cAdvisor (housekeeping 1 s) and a scrape (every 2 s) see the final counters
LINGER_S = 3.5


def prometheus_url(option: str | None) -> str | None:
    """The Prometheus to ask: the spec's ``kubernetes.prometheus_url``, else ``$PROMETHEUS``
    (what ``make cluster-up`` prints), else none."""
    return option or os.environ.get("PROMETHEUS") or None


def query(url: str, promql: str, at: float, timeout_s: float = 5.0) -> list[dict[str, Any]]:
    """An instant query; the ``result`` list of the answer."""
    q = urllib.parse.urlencode({"query": promql, "time": f"{at:.3f}"})
    with urllib.request.urlopen(f"{url.rstrip('/')}/api/v1/query?{q}", timeout=timeout_s) as resp:
        doc = json.load(resp)
    if doc.get("status") != "success":
        raise RuntimeError(f"Prometheus query failed: {doc.get('error', doc)}")
    return doc["data"]["result"]


def pod_counters(url: str, namespace: str, pod: str, container: str, start: float, end: float) -> dict[str, Any]:
    """Each counter's maximum over ``[start, end]`` (epoch seconds) for one container.

    Returns
    -------
    dict
        ``nr_periods``, ``nr_throttled``, ``throttled_seconds``, ``cpu_seconds``
        (``None`` for a counter Prometheus has no sample of).
    """
    window = max(1, int(end - start + 1))
    out: dict[str, Any] = {v: None for v in METRICS.values()}
    sel = f'namespace="{namespace}",pod="{pod}",container="{container}"'
    for metric, name in METRICS.items():
        res = query(url, f"max(max_over_time({metric}{{{sel}}}[{window}s]))", at=end)
        if res:
            v = float(res[0]["value"][1])
            out[name] = int(v) if name in _INTS else v
    return out


def agreement(cgroup: dict[str, Any], cadvisor: dict[str, Any]) -> dict[str, float | None]:
    """Throttled-period ratios from both sources and their difference (cAdvisor minus cgroup)."""

    def ratio(d: dict[str, Any]) -> float | None:
        p, t = d.get("nr_periods"), d.get("nr_throttled")
        return round(t / p, 4) if p and t is not None else (0.0 if p == 0 else None)

    a, b = ratio(cgroup), ratio(cadvisor)
    return {"cgroup_ratio": a, "cadvisor_ratio": b,
            "difference": None if a is None or b is None else round(b - a, 4)}
