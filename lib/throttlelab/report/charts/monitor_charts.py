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

_TIME = alt.X("end:T", title="time (UTC)")


def _series_label(df: pl.DataFrame) -> pl.DataFrame:
    name = pl.col("source").str.split("/").list.last()
    label = pl.when(pl.col("pod").is_not_null()).then(name + " · " + pl.col("pod")).otherwise(name)
    return df.with_columns(series=label)


def monitor_panels(
    intervals: pl.DataFrame,
    *,
    request_cores: float | None = None,
    title: str = "Monitor log",
    width: int = 640,
) -> alt.VConcatChart:
    """The four monitor panels stacked on one time axis (see the module docstring).

    Parameters
    ----------
    intervals
        Canonical intervals table (:meth:`IngestResult.intervals`).
    request_cores
        CPU request to draw as a dashed line (cores); ``None`` for none.
    """
    df = _series_label(intervals)
    color = alt.Color("series:N", title="log · pod")
    base = alt.Chart(df).properties(width=width, height=130)
    when = alt.Tooltip("end:T", title="time (UTC)", format="%Y-%m-%d %H:%M:%S")

    ratio = base.mark_line(interpolate="step-before").encode(
        _TIME,
        alt.Y("throttled_ratio:Q", title="throttled periods", axis=alt.Axis(format="%")),
        color,
        tooltip=[when, alt.Tooltip("series:N"), alt.Tooltip("throttled_ratio:Q", format=".1%", title="throttled ratio")],
    ).properties(title="CPU throttling ratio (Δnr_throttled / Δnr_periods)")

    usage = base.mark_line().encode(
        _TIME,
        alt.Y("effective_cores:Q", title="CPU (cores)"),
        color,
        tooltip=[when, alt.Tooltip("series:N"), alt.Tooltip("effective_cores:Q", format=".3f", title="usage (cores)"),
                 alt.Tooltip("limit_cores:Q", format=".3f", title="limit (cores)"),
                 alt.Tooltip("usage_share_of_limit:Q", format=".0%", title="usage / limit")],
    )
    limit = base.mark_line(interpolate="step-before", strokeDash=[6, 3], color="#d4a017").encode(
        _TIME, alt.Y("limit_cores:Q"), detail="series:N",
        tooltip=[when, alt.Tooltip("limit_cores:Q", format=".3f", title="limit (cores)")],
    )
    layers = [usage, limit]
    if "top_cpu_cores" in df.columns and df["top_cpu_cores"].drop_nulls().len():
        layers.append(base.mark_point(size=12, opacity=0.5).encode(
            _TIME, alt.Y("top_cpu_cores:Q"), color,
            tooltip=[when, alt.Tooltip("top_cpu_cores:Q", format=".3f", title="kubectl top (cores)")]))
    if request_cores:
        req = pl.DataFrame({"y": [float(request_cores)], "what": [f"request {request_cores:g} cores"]})
        layers.append(alt.Chart(req).mark_rule(strokeDash=[2, 2], color="gray").encode(
            y="y:Q", tooltip=[alt.Tooltip("what:N")]))
    usage_panel = alt.layer(*layers).properties(
        title="CPU usage (Δusage/Δt, line; kubectl top, dots) vs limit (dashed, yellow)")

    throttled = base.mark_area(opacity=0.5, interpolate="step-before").encode(
        _TIME,
        alt.Y("throttled_seconds_per_second:Q", title="throttled s per s", stack=None),
        color,
        tooltip=[when, alt.Tooltip("series:N"),
                 alt.Tooltip("throttled_seconds_per_second:Q", format=".3f", title="throttled s/s (summed over CPUs)")],
    ).properties(title="CPU throttled time (s per s, summed over CPUs)")

    mem = df.with_columns(memory_mib=pl.col("top_memory_bytes") / 2**20)
    memory = alt.Chart(mem).mark_line().encode(
        _TIME,
        alt.Y("memory_mib:Q", title="memory (MiB)"),
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
    ).properties(title=title, width=420)
