"""Active time under a quota: CPU time / wall time against the limit share, with the fitted line."""

from __future__ import annotations

import altair as alt
import numpy as np
import polars as pl

from throttlelab.analysis.limits import ActiveTimeFit


def active_time_chart(data: pl.DataFrame, fit: ActiveTimeFit, *, title: str) -> alt.Chart:
    """Measured active share (points), fitted line with its 95% band, and the y = x line (quota only)."""
    grid = np.linspace(0, max(1.0, float(data["limit_share"].max())), 50)
    lo, hi = fit.band(grid)
    line = pl.DataFrame({"limit_share": grid, "fitted": fit.predict(grid), "low": lo, "high": hi,
                         "quota_only": grid})
    x = alt.X("limit_share:Q", title="CPU limit as a share of one core", axis=alt.Axis(format="%"))
    ytitle = "CPU time / wall time"
    band = alt.Chart(line).mark_area(opacity=0.2).encode(
        x, alt.Y("low:Q", title=ytitle, axis=alt.Axis(format="%")), alt.Y2("high:Q"),
        tooltip=[alt.Tooltip("limit_share:Q", format=".0%"), alt.Tooltip("low:Q", format=".1%"),
                 alt.Tooltip("high:Q", format=".1%")])
    fitted = alt.Chart(line).mark_line().encode(
        x, alt.Y("fitted:Q"), tooltip=[alt.Tooltip("limit_share:Q", format=".0%"),
                                       alt.Tooltip("fitted:Q", format=".1%", title="fitted")])
    ref = alt.Chart(line).mark_line(strokeDash=[4, 3], color="gray").encode(
        x, alt.Y("quota_only:Q"), tooltip=[alt.Tooltip("quota_only:Q", format=".0%", title="quota only (y = x)")])
    pts = alt.Chart(data).mark_point(filled=True, size=80, color="black").encode(
        x, alt.Y("active_over_wall:Q"),
        tooltip=[alt.Tooltip("cpu_limit_cores:Q", title="limit (cores)"),
                 alt.Tooltip("active_over_wall:Q", format=".1%", title="CPU / wall"),
                 alt.Tooltip("limit_share:Q", format=".1%", title="limit share")])
    return alt.layer(band, ref, fitted, pts).properties(title=title, width=420, height=320)
