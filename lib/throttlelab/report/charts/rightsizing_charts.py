"""Right-sizing views: a container's usage distribution with its request and limit, and its throttled ratio over time."""

from __future__ import annotations

import altair as alt
import polars as pl

MARK_COLORS = {"current request": "#7f7f7f", "current limit": "#d62728",
               "recommended request": "#2ca02c", "recommended limit": "#1f77b4"}


def usage_distribution_chart(dist: pl.DataFrame, marks: pl.DataFrame, *, title: str, width: int = 520) -> alt.LayerChart:
    """Share of steps per CPU level (usage and demand bars) with the request and limit, now and recommended, as rules.

    ``dist`` and ``marks`` come from :func:`throttlelab.analysis.rightsizing.rightsizing_views.usage_distribution_frame`
    and :func:`~throttlelab.analysis.rightsizing.rightsizing_views.marks_frame`.
    """
    bars = alt.Chart(dist).mark_bar(opacity=0.55).encode(
        alt.X("cores:Q", title="CPU (cores)", scale=alt.Scale(domainMin=0)),
        alt.Y("share:Q", title="share of time", axis=alt.Axis(format="%"), stack=None),
        alt.Color("series:N", title=None, scale=alt.Scale(domain=["usage", "demand (usage + throttled)"],
                                                          range=["#6baed6", "#fd8d3c"])),
        tooltip=[alt.Tooltip("series:N"), alt.Tooltip("cores:Q", format=".3f", title="cores (bin centre)"),
                 alt.Tooltip("share:Q", format=".1%", title="share of time")],
    )
    rules = alt.Chart(marks).mark_rule(strokeWidth=2).encode(
        x="cores:Q",
        color=alt.Color("mark:N", title="request / limit",
                        scale=alt.Scale(domain=list(MARK_COLORS), range=list(MARK_COLORS.values()))),
        strokeDash=alt.condition("indexof(datum.mark, 'current') >= 0", alt.value([6, 3]), alt.value([1, 0])),
        tooltip=[alt.Tooltip("mark:N"), alt.Tooltip("cores:Q", format=".3f")],
    )
    return alt.layer(bars, rules).resolve_scale(color="independent").properties(title=title, width=width, height=170)


def throttled_ratio_chart(ratio: pl.DataFrame, *, target: float, title: str, width: int = 520) -> alt.LayerChart:
    """Throttled-period ratio per window (line) and the target (dashed)."""
    line = alt.Chart(ratio).mark_line(interpolate="step-before").encode(
        alt.X("time:T", title="time (UTC)"),
        alt.Y("throttled_ratio:Q", title="throttled periods", axis=alt.Axis(format="%")),
        tooltip=[alt.Tooltip("time:T", format="%Y-%m-%d %H:%M"), alt.Tooltip("throttled_ratio:Q", format=".1%")],
    )
    goal = alt.Chart(pl.DataFrame({"y": [target], "what": [f"target {target:.0%}"]})).mark_rule(
        strokeDash=[4, 3], color="#d62728").encode(y="y:Q", tooltip=[alt.Tooltip("what:N")])
    return alt.layer(line, goal).properties(title=title, width=width, height=120)
