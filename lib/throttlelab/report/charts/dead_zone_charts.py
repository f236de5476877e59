"""Dead zones: each limit's slowdown against its best lower limit, with intervals and verdicts."""

from __future__ import annotations

import altair as alt
import polars as pl

from throttlelab.analysis.runs import ResponseMetric

from throttlelab.analysis.limits import DeadZoneAnalysis
from throttlelab.report.charts.style import numeric_order, zero_centred

#: Okabe-Ito vermillion / grey / blue: readable with red-green colour blindness.
VERDICT_COLORS = {"dead zone": "#D55E00", "undecided": "#999999", "not a dead zone": "#0072B2"}


def dead_zone_chart(analysis: DeadZoneAnalysis, *, title: str, metric: ResponseMetric | None = None) -> alt.Chart:
    """Slowdown (%) of each limit over its best lower limit, 95% interval, verdict colour, threshold rule."""
    t = analysis.limits_table().filter(pl.col("slowdown_pct").is_not_null())
    order = numeric_order(t["limit"].to_list())
    x = alt.X("limit:N", sort=order, title="CPU limit", axis=alt.Axis(labelAngle=0))
    y_scale = alt.Scale(domain=zero_centred([*t["slowdown_ci_low_pct"], *t["slowdown_ci_high_pct"],
                                             analysis.threshold_pct], at_least=10.0), nice=False)
    base = alt.Chart(t)
    tips = [
        alt.Tooltip("limit:N"), alt.Tooltip("baseline:N", title="best lower limit"),
        alt.Tooltip("slowdown_pct:Q", format="+.1f", title="slowdown (%)"),
        alt.Tooltip("slowdown_ci_low_pct:Q", format="+.1f", title="CI low (%)"),
        alt.Tooltip("slowdown_ci_high_pct:Q", format="+.1f", title="CI high (%)"),
        alt.Tooltip("p_value:Q", format=".4f", title="adjusted p"), alt.Tooltip("p_value_holm:Q", format=".4f",
                                                                              title="Holm p"),
        alt.Tooltip("runs:Q"), alt.Tooltip("verdict:N"),
    ]
    color = alt.Color("verdict:N", scale=alt.Scale(domain=list(VERDICT_COLORS), range=list(VERDICT_COLORS.values())),
                      title="verdict")
    bars = base.mark_rule(strokeWidth=2).encode(
        x, alt.Y("slowdown_ci_low_pct:Q", title="slowdown vs best lower limit (%)" if metric is None or metric.name == "wall_seconds"
                 else f"{'cost (1 / ' + metric.label + ')' if metric.higher_is_better else metric.label} "
                      "vs best lower limit (%, + = worse)", scale=y_scale), alt.Y2("slowdown_ci_high_pct:Q"),
        color=color, tooltip=tips)
    points = base.mark_point(filled=True, size=80).encode(x, alt.Y("slowdown_pct:Q", scale=y_scale), color=color,
                                                          shape=alt.Shape("verdict:N", legend=None), tooltip=tips)
    rules = alt.Chart(pl.DataFrame({"y": [0.0, analysis.threshold_pct],
                                    "what": ["no change", f"threshold +{analysis.threshold_pct:g}%"]})).mark_rule(
        strokeDash=[4, 3], color="gray").encode(y="y:Q", tooltip=[alt.Tooltip("what:N")])
    return alt.layer(bars, points, rules).properties(title=title, width=520, height=300)
