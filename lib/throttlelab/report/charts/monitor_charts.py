"""Monitor views: the Grafana panels of the ffmpeg write-up, from the intervals table.

Four panels on one shared time axis: throttled ratio, CPU usage against the
limit (and the request), throttled time per second, and memory.  For long
logs, thin the samples first with
:func:`throttlelab.ingest.intervals.thin_samples`: the intervals between the
kept samples are exact over their (longer) span, not averages of ratios.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from throttlelab.core.quantities import format_cores
from throttlelab.report.charts.style import PANEL_WIDTH, WIDTH, elapsed_unit, utc_axis, utc_tooltip


def time_axis(df: pl.DataFrame) -> tuple[pl.DataFrame, alt.X]:
    """The shared time axis of the panels: elapsed time since the first sample (s, min or h; the start's date and
    clock time in the title) for logs up to three days, else a dated UTC clock.

    Returns ``df`` with ``start``/``end`` in UTC (naive times are taken as UTC), an ``elapsed`` column in the
    axis' unit, and the x encoding.
    """
    cols = [c for c in ("start", "end") if c in df.columns]
    df = df.with_columns(pl.col(c).dt.convert_time_zone("UTC") if df.schema[c].time_zone
                         else pl.col(c).dt.replace_time_zone("UTC") for c in cols)
    firsts = [v for v in (df[c].min() for c in cols) if v is not None]
    unit = elapsed_unit((df["end"].max() - min(firsts)).total_seconds()) if firsts else None
    if unit is None:
        return df.with_columns(elapsed=pl.lit(None, pl.Float64)), utc_axis("end")
    t0, (name, per) = min(firsts), unit
    df = df.with_columns(elapsed=(pl.col("end") - pl.lit(t0)).dt.total_microseconds() / 1e6 / per)
    return df, alt.X("elapsed:Q", title=f"time since {t0:%Y-%m-%d %H:%M:%S} UTC ({name})",
                     scale=alt.Scale(domainMin=0, nice=False))


def _series_label(df: pl.DataFrame) -> pl.DataFrame:
    name = pl.col("source").str.split("/").list.last()
    label = pl.when(pl.col("pod").is_not_null()).then(name + " · " + pl.col("pod")).otherwise(name)
    return df.with_columns(series=label)


def monitor_panels(
    intervals: pl.DataFrame,
    *,
    request_cores: float | None = None,
    title: str = "Monitor log",
    width: int = PANEL_WIDTH,
) -> alt.VConcatChart:
    """The four monitor panels stacked on one time axis (see the module docstring).

    Parameters
    ----------
    intervals
        Canonical intervals table (:meth:`IngestResult.intervals`).
    request_cores
        CPU request to draw as a dashed line (cores); ``None`` for none.

    The time axis is elapsed time since the first sample, or a dated clock for logs over three days
    (:func:`time_axis`); the legend sits above the panels so they take the page's width.
    """
    df, time_x = time_axis(_series_label(intervals))
    color = alt.Color("series:N", title="log · pod", legend=alt.Legend(orient="top", labelLimit=600))
    base = alt.Chart(df).properties(width=width, height=130)
    when = utc_tooltip("end")

    ratio = base.mark_line(interpolate="step-before").encode(
        time_x,
        alt.Y("throttled_ratio:Q", title="throttled periods", axis=alt.Axis(format="%")),
        color,
        tooltip=[when, alt.Tooltip("series:N"), alt.Tooltip("throttled_ratio:Q", format=".1%", title="throttled ratio")],
    ).properties(title="CPU throttling ratio (Δnr_throttled / Δnr_periods)")

    usage = base.mark_line().encode(
        time_x,
        alt.Y("effective_cores:Q", title="CPU (cores)"),
        color,
        tooltip=[when, alt.Tooltip("series:N"), alt.Tooltip("effective_cores:Q", format=".3f", title="usage (cores)"),
                 alt.Tooltip("limit_cores:Q", format=".3f", title="limit (cores)"),
                 alt.Tooltip("usage_share_of_limit:Q", format=".0%", title="usage / limit")],
    )
    limit = base.mark_line(interpolate="step-before", strokeDash=[6, 3], color="#d4a017").encode(
        time_x, alt.Y("limit_cores:Q"), detail="series:N",
        tooltip=[when, alt.Tooltip("limit_cores:Q", format=".3f", title="limit (cores)")],
    )
    layers = [usage, limit]
    if "top_cpu_cores" in df.columns and df["top_cpu_cores"].drop_nulls().len():
        layers.append(base.mark_point(size=12, opacity=0.5).encode(
            time_x, alt.Y("top_cpu_cores:Q"), color,
            tooltip=[when, alt.Tooltip("top_cpu_cores:Q", format=".3f", title="kubectl top (cores)")]))
    if request_cores:
        req = pl.DataFrame({"y": [float(request_cores)], "what": [f"request {format_cores(request_cores, suffix=' cores')}"]})
        layers.append(alt.Chart(req).mark_rule(strokeDash=[2, 2], color="gray").encode(
            y="y:Q", tooltip=[alt.Tooltip("what:N")]))
    usage_panel = alt.layer(*layers).properties(
        title="CPU usage (Δusage/Δt, line; kubectl top, dots) vs limit (dashed, yellow)")

    throttled = base.mark_area(opacity=0.5, interpolate="step-before").encode(
        time_x,
        alt.Y("throttled_seconds_per_second:Q", title="throttled s per s", stack=None),
        color,
        tooltip=[when, alt.Tooltip("series:N"),
                 alt.Tooltip("throttled_seconds_per_second:Q", format=".3f", title="throttled s/s (summed over CPUs)")],
    ).properties(title="CPU throttled time (s per s, summed over CPUs)")

    mem = df.with_columns(memory_mib=pl.col("top_memory_bytes") / 2**20)
    memory = alt.Chart(mem).mark_line().encode(
        time_x,
        alt.Y("memory_mib:Q", title="memory (MiB)", scale=alt.Scale(domainMin=0)),
        color,
        tooltip=[when, alt.Tooltip("series:N"), alt.Tooltip("memory_mib:Q", format=".1f", title="memory (MiB)")],
    ).properties(width=width, height=110, title="Memory (kubectl top)")

    return alt.vconcat(ratio, usage_panel, throttled, memory).resolve_scale(x="shared", color="shared").properties(
        title=title)


def skip_chart(skips: pl.DataFrame, *, title: str = "What was skipped, by reason") -> alt.Chart:
    """Bar per skip reason (``reason``, ``lines``; from ``SkipReport.to_frame``)."""
    if skips.height == 0:
        skips = pl.DataFrame({"reason": ["nothing skipped"], "lines": [0], "first_example": [""]})
    return alt.Chart(skips).mark_bar().encode(
        alt.X("lines:Q", title="lines skipped"),
        alt.Y("reason:N", title=None, sort="-x"),
        tooltip=[alt.Tooltip("reason:N"), alt.Tooltip("lines:Q", title="lines"),
                 alt.Tooltip("first_example:N", title="first example")],
    ).properties(title=title, width=WIDTH)
