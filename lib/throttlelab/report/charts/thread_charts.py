"""Thread counts: limits x threads heatmap and auto against the best explicit count."""

from __future__ import annotations

import math

import altair as alt
import polars as pl

from throttlelab import units
from throttlelab.analysis.runs import best_threads_view, cells_view
from throttlelab.analysis.threads import ThreadCountAnalysis
from throttlelab.report.charts.style import WIDTH, effect_domain, legend_values


def thread_heatmap(analysis: ThreadCountAnalysis, *, title: str) -> alt.Chart:
    """Geometric mean of the analysis' metric per (limit, threads) cell; text = the value; darker = better.

    The colour scale is viridis on a log scale with the better end dark (low wall time, high throughput);
    cell text is white on the darker half. The legend, above the chart, has round-number ticks.
    """
    m = analysis.metric
    scale, unit = units.display_unit(m.name, m.unit)  # latency in ms, as in the tables
    cells = cells_view(analysis.cells, m).with_columns(
        pl.col("threads").cast(pl.Int64, strict=False).fill_null(10**6).alias("threads_order"),
        pl.col("value") * scale)
    limits = cells.sort("limit_order")["limit_label"].unique(maintain_order=True).to_list()
    threads = cells.sort("threads_order")["threads"].unique(maintain_order=True).to_list()
    cells = cells.drop("limit_order", "threads_order").with_columns(ink=_ink(cells["value"], m.higher_is_better))
    x = alt.X("threads:N", sort=threads, title="threads", axis=alt.Axis(labelAngle=0))
    y = alt.Y("limit_label:N", sort=limits, title="CPU limit")
    top = cells["value"].abs().max() if cells.height else 0
    fmt = ",.0f" if top and top >= 1000 else ".3~g"  # 44,715 req/s, 0.0264 s, 2.35 s
    tips = [alt.Tooltip("limit_label:N", title="limit"), alt.Tooltip("threads:N"),
            alt.Tooltip("value:Q", format=fmt, title=f"{m.label} ({unit}, geo-mean)"), alt.Tooltip("runs:Q")]
    better = "higher" if m.higher_is_better else "lower"
    legend = alt.Legend(orient="top", direction="horizontal", gradientLength=320, format=fmt,
                        values=legend_values(cells["value"], log=True), titleLimit=600,
                        title=f"{m.label} ({unit}); darker = better ({better})")
    # viridis runs dark -> bright from low to high values: reversed when higher is better, so better is dark
    rect = alt.Chart(cells).mark_rect().encode(
        x, y, color=alt.Color("value:Q", scale=alt.Scale(type="log", scheme="viridis", reverse=m.higher_is_better),
                              legend=legend), tooltip=tips)
    text = alt.Chart(cells).mark_text(fontSize=11).encode(x, y, text=alt.Text("value:Q", format=fmt),
                                                          color=alt.condition("datum.ink == 'white'", alt.value("white"), alt.value("black")), tooltip=tips)
    return alt.layer(rect, text).properties(title=title, width=WIDTH, height=30 * max(len(limits), 3))


def _ink(values: pl.Series, higher_is_better: bool) -> pl.Series:
    """Text colour per cell: white where the viridis fill is dark (the darker half of the scale), else black."""
    v = values.cast(pl.Float64)
    pos = v.filter(v > 0)
    if pos.len() == 0:
        return pl.Series("ink", ["black"] * len(values))
    lo, hi = math.log(pos.min()), math.log(pos.max())
    out = []
    for x in v:
        if x is None or x <= 0:
            out.append("black")
            continue
        t = (math.log(x) - lo) / (hi - lo) if hi > lo else 0.5
        out.append("white" if (1 - t if higher_is_better else t) < 0.5 else "black")
    return pl.Series("ink", out)


def auto_vs_best_chart(analysis: ThreadCountAnalysis, *, title: str) -> alt.Chart:
    """``auto`` against the best explicit thread count: change of the metric (%), with 95% interval, per limit.

    For wall time: % slower; for another metric its own change (throughput: negative = worse).
    """
    m = analysis.metric
    t = analysis.table().filter(pl.col("auto_vs_best_pct").is_not_null())
    if m.name != "wall_seconds":
        v = best_threads_view(t, m)
        n = m.name
        t = v.rename({f"auto_vs_best_{n}_pct": "auto_vs_best_pct", f"auto_vs_best_{n}_ci_low_pct": "auto_vs_best_ci_low_pct",
                      f"auto_vs_best_{n}_ci_high_pct": "auto_vs_best_ci_high_pct"})
    order = t.sort("limit_cores", nulls_last=True)["limit"].to_list()
    x = alt.X("limit:N", sort=order, title="CPU limit", axis=alt.Axis(labelAngle=0))
    y_scale = alt.Scale(domain=effect_domain([*t["auto_vs_best_ci_low_pct"], *t["auto_vs_best_ci_high_pct"],
                                              *t["auto_vs_best_pct"]]), nice=False)
    tips = [alt.Tooltip("limit:N"), alt.Tooltip("best_threads:N", title="best explicit threads"),
            alt.Tooltip("auto_vs_best_pct:Q", format="+.1f", title="auto vs best (%)"),
            alt.Tooltip("auto_vs_best_ci_low_pct:Q", format="+.1f", title="CI low (%)"),
            alt.Tooltip("auto_vs_best_ci_high_pct:Q", format="+.1f", title="CI high (%)"),
            alt.Tooltip("auto_vs_best_p_value:Q", format=".4f", title="p")]
    err = alt.Chart(t).mark_errorbar(ticks={"size": 14}, thickness=2, color="#0072B2").encode(
        x, alt.Y("auto_vs_best_ci_low_pct:Q", scale=y_scale,
                 title="auto slower than best explicit (%)" if m.name == "wall_seconds"
                 else f"auto vs best explicit: {m.label} change (%)"),
        alt.Y2("auto_vs_best_ci_high_pct:Q"), tooltip=tips)
    pts = alt.Chart(t).mark_point(filled=True, size=80, color="#0072B2").encode(x, alt.Y("auto_vs_best_pct:Q", scale=y_scale),
                                                               tooltip=tips)
    zero = alt.Chart(pl.DataFrame({"y": [0.0]})).mark_rule(strokeDash=[4, 3], color="gray").encode(y="y:Q")
    return alt.layer(err, pts, zero).properties(title=title, width=WIDTH, height=260)
