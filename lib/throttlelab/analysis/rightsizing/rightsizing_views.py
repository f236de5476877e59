"""Tables and chart frames of a right-sizing: the decision table, usage distributions, throttled ratio over time.

Chart frames take a workload container (every pod pooled) or one pod's container.

>>> import numpy as np
>>> from throttlelab.ingest.prometheus import ContainerCPU
>>> t = np.arange(4) * 60.0
>>> c = ContainerCPU("ns", "p", "c", 0.5, 1.0, "cadvisor", 60.0, t, np.array([0.2, 0.4, np.nan, 0.6]),
...                  np.zeros(4), np.full(4, 10.0), np.array([0.0, 1.0, np.nan, 5.0]))
>>> throttled_ratio_frame(c, window_s=120)["throttled_ratio"].to_list()
[0.05, 0.25]
"""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl

from throttlelab.core.quantities import format_millicores, format_millicores_range
from throttlelab.analysis.rightsizing.recommendation import Rightsizing
from throttlelab.ingest.prometheus import ContainerCPU
from throttlelab.ingest.prometheus import WorkloadCPU, single

# JSON/CSV columns, in the order first
COLUMNS = [f.name for f in dataclasses.fields(Rightsizing)]


#: Fields holding an object: one JSON text per cell in the frame (and the CSV), the same object as in the JSON.
NESTED = ("runtime_advice", "hpa")


def recommendations_frame(recs: list[Rightsizing]) -> pl.DataFrame:
    """One row per container, every field of :class:`Rightsizing` (None -> null; ``runtime_advice`` and ``hpa`` as
    JSON text)."""
    import json

    schema = {f.name: (pl.String if f.type in ("str",) or f.name in NESTED else pl.Float64)
              for f in dataclasses.fields(Rightsizing)}
    schema.update(steps=pl.Int64, pods=pl.Int64, demand_censored=pl.Boolean, container_threads_max=pl.Int64)
    rows = []
    for r in recs:
        row = {f.name: getattr(r, f.name) for f in dataclasses.fields(Rightsizing)}
        for k in NESTED:
            row[k] = None if row[k] is None else json.dumps(row[k].to_dict(), allow_nan=False)
        rows.append(row)
    return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)


def advice_sentences(r: Rightsizing) -> list[str]:
    """The runtime's thread advice and the HPA's scaling of a row, in plain words (none where neither applies)."""
    return [x for x in (r.runtime_advice and r.runtime_advice.reason, r.hpa and r.hpa.sentence) if x]


def label(r: Rightsizing) -> str:
    """``namespace/Kind/workload/container``: how every view names a workload container."""
    return f"{r.namespace}/{r.workload_kind}/{r.workload}/{r.container}"


def millicores(v: float | None) -> str:
    """Cores as millicores, the unit of every CPU column of the decision table (``none``: not set).

    >>> millicores(2.0), millicores(0.3), millicores(None)
    ('2000m', '300m', 'none')
    """
    return format_millicores(v, unlimited="none")


#: Decisions whose patch leaves the request and the limit as they are: their rows show no new number.
UNCHANGED = ("keep", "too little data")


def decision_table(recs: list[Rightsizing]) -> pl.DataFrame:
    """The readable table: workload container, pods, decision, request and limit now and new (millicores, one unit per
    column) with their 90% intervals, usage and throttling.

    A ``keep`` row shows ``keep`` and no new number (the patch leaves it out), ``too little data`` shows ``?``; a
    first-round recommendation (:attr:`Rightsizing.demand_censored`: throttled in most periods, demand above the
    limit never observed) ends in ``*`` and its interval is open above where the node's size is unknown.
    """

    def new(r, value, kept):
        if r.decision == "too little data":
            return "?"
        if r.decision == "keep" or kept:
            return "keep"
        return millicores(value) + ("*" if r.demand_censored else "")

    def span(r, lo, hi, kept):
        a, b = getattr(r, lo), getattr(r, hi)
        if r.decision in UNCHANGED or kept or a is None:
            return ""
        return format_millicores_range(a, b)

    def pct(v):
        return "n/a" if v is None else f"{100 * v:.1f}%"

    rows = []
    for r in recs:
        keep_limit = r.decision == "keep (policy)"
        no_limit = r.decision == "no limit (policy)"
        rows.append({
            "namespace": r.namespace,
            "workload": f"{r.workload_kind}/{r.workload}",
            "container": r.container,
            "pods": r.pods,
            "pod-hours": f"{r.pod_hours:,.1f}",
            "decision": r.decision,
            "request now": millicores(r.current_request_cores),
            "request new": new(r, r.recommended_request_cores, False),
            "request 90% interval": span(r, "recommended_request_low", "recommended_request_high", False),
            "limit now": millicores(r.current_limit_cores),
            "limit new": "none" if no_limit else new(r, r.recommended_limit_cores, keep_limit),
            "limit 90% interval": span(r, "recommended_limit_low", "recommended_limit_high", keep_limit or no_limit),
            "usage p95": "n/a" if r.usage_p95_cores is None else millicores(r.usage_p95_cores),
            "usage max": "n/a" if r.usage_max_cores is None else millicores(r.usage_max_cores),
            "throttled": pct(r.throttled_ratio),
            "p95 5-min": pct(r.throttled_ratio_p95_5m),
            "throttled s/h": "n/a" if r.throttled_seconds_per_hour is None else f"{r.throttled_seconds_per_hour:,.0f}",
            "KRR-style request": millicores(r.krr_request_cores) if r.krr_request_cores else "n/a",
            "VPA-style request": millicores(r.vpa_request_cores) if r.vpa_request_cores else "n/a",
            "VPA-style limit": millicores(r.vpa_limit_cores) if r.vpa_request_cores else "n/a",
        })
    return pl.DataFrame(rows)


#: What the ``*`` of a first-round number means (said under every table that shows one).
EXTRAPOLATED_NOTE = ("* a first round: throttled in most periods, so demand above the current limit was never observed; "
                     "this limit is raised to where the next window sees it. Apply it and run again after 6 h for a "
                     "tight limit.")


def _workload(c: WorkloadCPU | ContainerCPU) -> WorkloadCPU:
    return single(c) if isinstance(c, ContainerCPU) else c


def usage_distribution_frame(c: WorkloadCPU | ContainerCPU, bins: int = 40) -> pl.DataFrame:
    """Histogram of usage and of demand (usage + throttled) per (pod, step): ``series``, ``cores`` (bin centre),
    ``share``."""
    p = _workload(c).pooled()
    u = p.usage
    d = u + np.nan_to_num(p.throttled_seconds)
    if len(u) == 0:
        return pl.DataFrame(schema={"series": pl.String, "cores": pl.Float64, "width": pl.Float64, "share": pl.Float64})
    top = max(float(d.max()), 1e-3)
    edges = np.linspace(0, top * 1.0001, bins + 1)
    out = []
    for name, v in (("usage", u), ("demand (usage + throttled)", d)):
        h, _ = np.histogram(v, edges)
        out.append(pl.DataFrame({"series": name, "cores": (edges[:-1] + edges[1:]) / 2,
                                 "width": np.diff(edges), "share": h / len(v)}))
    return pl.concat(out)


def marks_frame(r: Rightsizing) -> pl.DataFrame:
    """Vertical rules to draw on the distribution: current and recommended request and limit."""
    rows = [("current request", r.current_request_cores), ("current limit", r.current_limit_cores),
            ("recommended request", r.recommended_request_cores), ("recommended limit", r.recommended_limit_cores)]
    return pl.DataFrame([{"mark": k, "cores": v} for k, v in rows if v is not None],
                        schema={"mark": pl.String, "cores": pl.Float64})


def throttled_ratio_frame(c: WorkloadCPU | ContainerCPU, window_s: float = 1800) -> pl.DataFrame:
    """Throttled-period ratio per ``window_s`` over all pods (sums of throttled periods over sums of periods):
    ``time`` (the window's end), ``throttled_ratio``; windows with no sample are absent, those without periods null."""
    w = _workload(c)
    first = min(float(m.times[0]) - m.step_s for m in w.members)
    per, thr, idx = [], [], []
    for m in w.members:
        k = max(1, int(round(window_s / m.step_s)))
        n = len(m.times) // k * k
        per.append(m.periods[:n])
        thr.append(m.throttled_periods[:n])
        idx.append(np.floor((m.times[:n] - first - 1e-6) / window_s).astype(np.int64))
    per, thr, idx = np.concatenate(per), np.concatenate(thr), np.concatenate(idx)
    if len(per) == 0 or not np.isfinite(per).any():
        return pl.DataFrame(schema={"time": pl.Datetime("ms", "UTC"), "throttled_ratio": pl.Float64})
    win, inv = np.unique(idx, return_inverse=True)
    p = np.bincount(inv, np.nan_to_num(per), len(win))
    t = np.bincount(inv, np.nan_to_num(thr), len(win))
    ratio = np.where(p > 0, t / np.maximum(p, 1e-12), np.nan)
    times = ((first + (win + 1) * window_s) * 1000).astype("int64")
    return pl.DataFrame({"time": times, "throttled_ratio": ratio}).with_columns(
        pl.col("time").cast(pl.Datetime("ms", "UTC")), pl.col("throttled_ratio").fill_nan(None))
