"""Right-sizing views: a container's usage distribution with its request and limit, and its throttled ratio over time."""

from __future__ import annotations

import altair as alt
import polars as pl

from throttlelab.report.charts.style import WIDTH, utc_axis, utc_tooltip

MARK_COLORS = {"current request": "#7f7f7f", "current limit": "#d62728",
               "recommended request": "#2ca02c", "recommended limit": "#1f77b4"}


def usage_distribution_chart(dist: pl.DataFrame, marks: pl.DataFrame, *, title: str,
                             width: int | str = WIDTH) -> alt.LayerChart:
    """Share of steps per CPU level (usage: filled bars; demand: outlined bars) with the request and limit, now and
    recommended, as rules. The CPU axis starts at 0 cores: every bar spans its bin, none reaches below 0.

    ``dist`` and ``marks`` come from :func:`throttlelab.analysis.rightsizing.rightsizing_views.usage_distribution_frame`
    and :func:`~throttlelab.analysis.rightsizing.rightsizing_views.marks_frame`.
    """
    dist = dist.with_columns(lo=(pl.col("cores") - pl.col("width") / 2).clip(0.0),
                             hi=pl.col("cores") + pl.col("width") / 2)
    top = max([0.0, *dist["hi"].drop_nulls(), *marks["cores"].drop_nulls()])
    x_scale = alt.Scale(domain=[0.0, top * 1.05 or 1.0], nice=False, padding=0)
    tips = [alt.Tooltip("series:N"), alt.Tooltip("cores:Q", format=".3f", title="cores (bin centre)"),
            alt.Tooltip("share:Q", format=".1%", title="share of time")]
    x = alt.X("lo:Q", title="CPU (cores)", scale=x_scale)
    y = alt.Y("share:Q", title="share of time", axis=alt.Axis(format="%"), stack=None, scale=alt.Scale(domainMin=0))

    def one(series: str, colour: str) -> alt.Color:  # one legend entry per layer, drawn as its bars are
        return alt.Color("series:N", title=None, scale=alt.Scale(domain=[series], range=[colour]))

    usage = alt.Chart(dist.filter(pl.col("series") == "usage")).mark_bar(opacity=0.55).encode(
        x, alt.X2("hi:Q"), y, alt.Y2(datum=0), one("usage", "#0072B2"), tooltip=tips)
    demand = alt.Chart(dist.filter(pl.col("series") != "usage")).mark_bar(filled=False, strokeWidth=1.5).encode(
        x, alt.X2("hi:Q"), y, alt.Y2(datum=0), one("demand (usage + throttled)", "#E69F00"), tooltip=tips)
    rules = alt.Chart(marks).mark_rule(strokeWidth=2).encode(
        x=alt.X("cores:Q", scale=x_scale),
        color=alt.Color("mark:N", title="request / limit",
                        scale=alt.Scale(domain=list(MARK_COLORS), range=list(MARK_COLORS.values()))),
        strokeDash=alt.condition("indexof(datum.mark, 'current') >= 0", alt.value([6, 3]), alt.value([1, 0])),
        tooltip=[alt.Tooltip("mark:N"), alt.Tooltip("cores:Q", format=".3f")],
    )
    return alt.layer(usage, demand, rules).resolve_scale(color="independent").properties(
        title=title, width=width, height=170)


def throttled_ratio_chart(ratio: pl.DataFrame, *, target: float, title: str, width: int | str = WIDTH) -> alt.LayerChart:
    """Throttled-period ratio per window (line) and the target (dashed), on a dated UTC clock."""
    when = utc_tooltip("time", "window end (UTC)", seconds=False)
    line = alt.Chart(ratio).mark_line(interpolate="step-before").encode(
        utc_axis("time"),
        alt.Y("throttled_ratio:Q", title="throttled periods", axis=alt.Axis(format="%"), scale=alt.Scale(domainMin=0)),
        tooltip=[when, alt.Tooltip("throttled_ratio:Q", format=".1%")],
    )
    goal = alt.Chart(pl.DataFrame({"y": [target], "what": [f"target {target:.0%}"]})).mark_rule(
        strokeDash=[4, 3], color="#d62728").encode(y="y:Q", tooltip=[alt.Tooltip("what:N")])
    return alt.layer(line, goal).properties(title=title, width=width, height=120)
