"""Capacity: projected CPU against load per variant, with the projection's interval and the threshold."""

from __future__ import annotations

import altair as alt
import polars as pl

from throttlelab.core.quantities import format_cores
from throttlelab.report.charts.style import WIDTH


def capacity_chart(curves: pl.DataFrame, measured: pl.DataFrame, *, threshold_cores: float, unit: str,
                   title: str) -> alt.Chart:
    """Projected CPU (cores) against ``unit`` per variant (line + band), measured points, threshold rule.

    ``curves``: from :func:`throttlelab.analysis.capacity.capacity.projection_curve`;
    ``measured``: columns ``variant``, ``units``, ``cpu_cores``.
    """
    x = alt.X("units:Q", title=unit)
    color = alt.Color("variant:N", title="variant")
    tips = [alt.Tooltip("variant:N"), alt.Tooltip("units:Q", title=unit),
            alt.Tooltip("cpu_cores:Q", format=".3f", title="CPU (cores)"),
            alt.Tooltip("cpu_cores_low:Q", format=".3f", title="low"),
            alt.Tooltip("cpu_cores_high:Q", format=".3f", title="high")]
    y_scale = alt.Scale(domainMin=0)  # CPU is never negative: a projection band reaching below 0 stops there
    band = alt.Chart(curves).mark_area(opacity=0.2, clip=True).encode(
        x, alt.Y("cpu_cores_low:Q", title="CPU (cores)", scale=y_scale), alt.Y2("cpu_cores_high:Q"), color=color, tooltip=tips)
    line = alt.Chart(curves).mark_line().encode(x, alt.Y("cpu_cores:Q"), color=color, tooltip=tips)
    pts = alt.Chart(measured).mark_point(filled=True, size=90, shape="diamond").encode(
        x, alt.Y("cpu_cores:Q"), color=color,
        tooltip=[alt.Tooltip("variant:N"), alt.Tooltip("units:Q", title=unit),
                 alt.Tooltip("cpu_cores:Q", format=".3f", title="measured CPU (cores)")])
    rule = alt.Chart(pl.DataFrame({"y": [threshold_cores], "what": [f"threshold {format_cores(threshold_cores, suffix=' cores')}"]})).mark_rule(
        strokeDash=[4, 3], color="red").encode(y="y:Q", tooltip=[alt.Tooltip("what:N")])
    return alt.layer(band, line, pts, rule).properties(title=title, width=WIDTH, height=300)
