"""Charts of a freshly run sweep: wall time against the CPU limit, and one run's monitor intervals."""

from __future__ import annotations

import altair as alt
import polars as pl

from throttlelab.core.quantities import cores_text
from throttlelab.report.charts.style import PANEL_WIDTH, WIDTH, numeric_order


def limit_wall_chart(runs: pl.DataFrame, *, title: str = "Wall time by CPU limit and thread count") -> alt.LayerChart:
    """Each run (points) and the median per limit and thread count (lines).

    Unlimited runs are drawn at the right, one step past the largest limit
    (labelled in the tooltip).  Warm-ups and failed runs are left out.
    """
    c = pl.col
    df = runs.filter((c("status") == "ok") & ~c("warmup").fill_null(False))
    top = df["cpu_limit_cores"].max()
    unl_x = float(top) * 1.5 if top is not None else 1.0
    df = df.with_columns(
        cores=c("cpu_limit_cores").fill_null(unl_x),
        limit=cores_text(c("cpu_limit_cores"), suffix=" cores"),
    ).select("run_id", "cores", "limit", "threads", "replicate", "wall_seconds", "cpu_seconds", "nr_periods",
             "nr_throttled")
    med = df.group_by("cores", "limit", "threads", maintain_order=True).agg(c("wall_seconds").median().alias("median_wall_seconds"))
    x = alt.X("cores:Q", scale=alt.Scale(type="log"), title="CPU limit (cores, log scale; rightmost = unlimited)")
    color = alt.Color("threads:N", title="threads", sort=numeric_order(df["threads"].cast(pl.String).to_list()))
    points = alt.Chart(df).mark_point(filled=True, opacity=0.6).encode(
        x, alt.Y("wall_seconds:Q", title="wall time (s)"), color,
        tooltip=[alt.Tooltip("run_id:N"), alt.Tooltip("limit:N"), alt.Tooltip("threads:N"),
                 alt.Tooltip("replicate:Q"), alt.Tooltip("wall_seconds:Q", format=".2f", title="wall (s)"),
                 alt.Tooltip("cpu_seconds:Q", format=".2f", title="CPU (s)"),
                 alt.Tooltip("nr_throttled:Q", title="throttled periods"), alt.Tooltip("nr_periods:Q", title="periods")])
    lines = alt.Chart(med).mark_line().encode(
        x, alt.Y("median_wall_seconds:Q", title="wall time (s)"), color,
        tooltip=[alt.Tooltip("limit:N"), alt.Tooltip("threads:N"),
                 alt.Tooltip("median_wall_seconds:Q", format=".2f", title="median wall (s)")])
    return alt.layer(lines, points).properties(title=title, width=WIDTH, height=320)


def run_intervals_chart(intervals: pl.DataFrame, *, title: str) -> alt.VConcatChart:
    """One run over time: CPU used per interval against its limit, and the share of throttled periods."""
    df = intervals.select("seconds_since_start", "seconds", "effective_cores", "limit_cores", "throttled_ratio",
                          "throttled_seconds_per_second")
    df = df.with_columns(interval_start=(pl.col("seconds_since_start") - pl.col("seconds")).clip(0.0))
    x = alt.X("seconds_since_start:Q", title="time since the first sample (s)", scale=alt.Scale(domainMin=0))
    tips = [alt.Tooltip("seconds_since_start:Q", format=".2f", title="t (s)"),
            alt.Tooltip("effective_cores:Q", format=".2f", title="CPU used (cores)"),
            alt.Tooltip("limit_cores:Q", format=".2f", title="limit (cores)"),
            alt.Tooltip("throttled_ratio:Q", format=".0%", title="throttled periods"),
            alt.Tooltip("throttled_seconds_per_second:Q", format=".2f", title="throttled s per s")]
    usage = alt.Chart(df).mark_line(point=True).encode(x, alt.Y("effective_cores:Q", title="CPU used (cores)"),
                                                       tooltip=tips)
    limit = alt.Chart(df.filter(pl.col("limit_cores").is_not_null())).mark_line(strokeDash=[4, 3], color="red").encode(
        x, alt.Y("limit_cores:Q", title="CPU used (cores)"), tooltip=tips)
    ratio = alt.Chart(df).mark_bar(opacity=0.7).encode(  # each bar spans its interval
        alt.X("interval_start:Q", title="time since the first sample (s)", scale=alt.Scale(domainMin=0)),
        alt.X2("seconds_since_start:Q"), alt.Y("throttled_ratio:Q", title="throttled periods (share)", scale=alt.Scale(domain=[0, 1])),
        tooltip=tips)
    return alt.vconcat(
        alt.layer(usage, limit).properties(title=f"{title}: CPU used (line) and limit (dashed)", width=PANEL_WIDTH, height=180),
        ratio.properties(title="share of CFS periods throttled, per interval", width=PANEL_WIDTH, height=120),
    )
