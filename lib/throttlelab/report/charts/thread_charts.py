"""Thread counts: limits x threads heatmap and auto against the best explicit count."""

from __future__ import annotations

import altair as alt
import polars as pl

from throttlelab.analysis.runs import best_threads_view, cells_view
from throttlelab.analysis.threads import ThreadCountAnalysis


def thread_heatmap(analysis: ThreadCountAnalysis, *, title: str) -> alt.Chart:
    """Geometric mean of the analysis' metric per (limit, threads) cell; text = the value; darker = better."""
    m = analysis.metric
    cells = cells_view(analysis.cells, m).with_columns(
        pl.col("threads").cast(pl.Int64, strict=False).fill_null(10**6).alias("threads_order"))
    limits = cells.sort("limit_order")["limit_label"].unique(maintain_order=True).to_list()
    threads = cells.sort("threads_order")["threads"].unique(maintain_order=True).to_list()
    cells = cells.drop("limit_order", "threads_order")  # inf (unlimited) is not JSON
    x = alt.X("threads:N", sort=threads, title="threads")
    y = alt.Y("limit_label:N", sort=limits, title="CPU limit")
    tips = [alt.Tooltip("limit_label:N", title="limit"), alt.Tooltip("threads:N"),
            alt.Tooltip("value:Q", format=".4g", title=f"{m.label} ({m.unit}, geo-mean)"), alt.Tooltip("runs:Q")]
    rect = alt.Chart(cells).mark_rect().encode(
        x, y, color=alt.Color("value:Q", scale=alt.Scale(type="log", scheme="viridis", reverse=not m.higher_is_better),
                              title=f"{m.label} ({m.unit})"), tooltip=tips)
    top = cells["value"].abs().max() if cells.height else 0
    fmt = ",.0f" if top and top >= 1000 else ".3~g"  # 44,715 req/s, 0.0264 s, 2.35 s
    text = alt.Chart(cells).mark_text(fontSize=10).encode(x, y, text=alt.Text("value:Q", format=fmt),
                                                          tooltip=tips)
    return alt.layer(rect, text).properties(title=title, width=360, height=30 * max(len(limits), 3))


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
    x = alt.X("limit:N", sort=order, title="CPU limit")
    tips = [alt.Tooltip("limit:N"), alt.Tooltip("best_threads:N", title="best explicit threads"),
            alt.Tooltip("auto_vs_best_pct:Q", format="+.1f", title="auto vs best (%)"),
            alt.Tooltip("auto_vs_best_ci_low_pct:Q", format="+.1f", title="CI low (%)"),
            alt.Tooltip("auto_vs_best_ci_high_pct:Q", format="+.1f", title="CI high (%)"),
            alt.Tooltip("auto_vs_best_p_value:Q", format=".4f", title="p")]
    err = alt.Chart(t).mark_rule(strokeWidth=2).encode(
        x, alt.Y("auto_vs_best_ci_low_pct:Q", title="auto slower than best explicit (%)" if m.name == "wall_seconds"
                 else f"auto vs best explicit: {m.label} change (%)"),
        alt.Y2("auto_vs_best_ci_high_pct:Q"), tooltip=tips)
    pts = alt.Chart(t).mark_point(filled=True, size=80).encode(x, alt.Y("auto_vs_best_pct:Q"), tooltip=tips)
    zero = alt.Chart(pl.DataFrame({"y": [0.0]})).mark_rule(strokeDash=[4, 3], color="gray").encode(y="y:Q")
    return alt.layer(err, pts, zero).properties(title=title, width=420, height=260)
