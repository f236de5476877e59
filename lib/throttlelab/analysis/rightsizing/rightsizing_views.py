"""Tables and chart frames of a right-sizing: the decision table, usage distributions, throttled ratio over time.

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

from throttlelab.analysis.rightsizing.rightsizing import Rightsizing
from throttlelab.ingest.prometheus import ContainerCPU

# JSON/CSV columns, in the order first
COLUMNS = [f.name for f in dataclasses.fields(Rightsizing)]


def recommendations_frame(recs: list[Rightsizing]) -> pl.DataFrame:
    """One row per container, every field of :class:`Rightsizing` (None -> null)."""
    schema = {f.name: (pl.String if f.type in ("str",) else pl.Float64) for f in dataclasses.fields(Rightsizing)}
    schema.update(steps=pl.Int64, demand_censored=pl.Boolean)
    rows = [dataclasses.asdict(r) for r in recs]
    return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)


def decision_table(recs: list[Rightsizing]) -> pl.DataFrame:
    """The readable table: container, decision, request and limit now -> recommended [interval], usage, throttling."""

    def cores(v):
        return "none" if v is None else (f"{v * 1000:.0f}m" if v < 1 else f"{v:.2f}")

    def span(r, lo, hi):
        a, b = getattr(r, lo), getattr(r, hi)
        if a is not None and b is None and r.demand_censored:
            return f" [{cores(a)}-open]"  # censored demand, node size unknown
        return "" if a is None or b is None else f" [{cores(a)}-{cores(b)}]"

    def pct(v):
        return "n/a" if v is None else f"{100 * v:.1f}%"

    rows = []
    for r in recs:
        if r.decision == "too little data":
            r = dataclasses.replace(r, recommended_request_cores=None, recommended_limit_cores=None)
        rows.append({
            "container": f"{r.namespace}/{r.pod}/{r.container}",
            "decision": r.decision,
            "request": f"{cores(r.current_request_cores)} -> {cores(r.recommended_request_cores) if r.recommended_request_cores else '?'}"
                       + span(r, "recommended_request_low", "recommended_request_high"),
            "limit": f"{cores(r.current_limit_cores)} -> {'?' if r.decision == 'too little data' else cores(r.recommended_limit_cores)}"
                     + span(r, "recommended_limit_low", "recommended_limit_high"),
            "usage p50/p95/p99/max": "/".join(cores(v) if v is not None else "n/a" for v in
                                              (r.usage_p50_cores, r.usage_p95_cores, r.usage_p99_cores, r.usage_max_cores)),
            "throttled": pct(r.throttled_ratio),
            "p95 5-min": pct(r.throttled_ratio_p95_5m),
            "throttled s/h": "n/a" if r.throttled_seconds_per_hour is None else f"{r.throttled_seconds_per_hour:,.0f}",
            "KRR-style req/lim": f"{cores(r.krr_request_cores)}/{cores(r.krr_limit_cores)}" if r.krr_request_cores else "n/a",
            "VPA-style req/lim": f"{cores(r.vpa_request_cores)}/{cores(r.vpa_limit_cores)}" if r.vpa_request_cores else "n/a",
        })
    return pl.DataFrame(rows)


def usage_distribution_frame(c: ContainerCPU, bins: int = 40) -> pl.DataFrame:
    """Histogram of usage and of demand (usage + throttled) per step: ``series``, ``cores`` (bin centre), ``share``."""
    have = np.isfinite(c.usage)
    u = c.usage[have]
    d = u + np.nan_to_num(c.throttled_seconds[have])
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


def throttled_ratio_frame(c: ContainerCPU, window_s: float = 1800) -> pl.DataFrame:
    """Throttled-period ratio per ``window_s`` (sums of throttled periods over sums of periods): ``time``, ``throttled_ratio``."""
    per = c.periods
    thr = c.throttled_periods
    k = max(1, int(round(window_s / c.step_s)))
    n = len(c.times) // k * k
    if n == 0 or not np.isfinite(per).any():
        return pl.DataFrame(schema={"time": pl.Datetime("ms", "UTC"), "throttled_ratio": pl.Float64})
    p = np.nansum(per[:n].reshape(-1, k), 1)
    t = np.nansum(thr[:n].reshape(-1, k), 1)
    ratio = np.where(p > 0, t / np.maximum(p, 1e-12), np.nan)
    times = (c.times[:n].reshape(-1, k)[:, -1] * 1000).astype("int64")
    return pl.DataFrame({"time": times, "throttled_ratio": ratio}).with_columns(
        pl.col("time").cast(pl.Datetime("ms", "UTC")), pl.col("throttled_ratio").fill_nan(None))
