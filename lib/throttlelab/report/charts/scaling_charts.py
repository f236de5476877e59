"""Run time against CPU limit: runs, per-limit geometric means and fitted scaling curves with bands."""

from __future__ import annotations

import altair as alt
import numpy as np
import polars as pl

from throttlelab.analysis.runs import ResponseMetric

from throttlelab.analysis.limits import ScalingFit
from throttlelab.report.charts.style import fitted_domain


def cost_title(metric: ResponseMetric) -> str:
    """Axis title of a metric's cost, e.g. ``"cost: 1 / throughput (s per req, log scale; lower is better)"``."""
    if metric.higher_is_better:
        return f"cost: 1 / {metric.label} (s per {metric.unit.split('/')[0]}, log scale; lower is better)"
    return f"{metric.label} ({metric.unit}, log scale)"


def fit_curves(fits: list[ScalingFit], x_min: float, x_max: float, points: int = 120) -> pl.DataFrame:
    """Fitted curves (and bootstrap bands) of every model on a log-spaced grid."""
    grid = np.geomspace(x_min, x_max, points)
    frames = []
    for f in fits:
        lo, hi = f.band(grid)
        frames.append(pl.DataFrame({"model": f.model, "cores": grid, "seconds": f.predict_time(grid),
                                    "low": lo, "high": hi, "aic": f.aic}))
    return pl.concat(frames) if frames else pl.DataFrame(schema={"model": pl.String, "cores": pl.Float64,
                                                                 "seconds": pl.Float64, "low": pl.Float64,
                                                                 "high": pl.Float64, "aic": pl.Float64})


def scaling_chart(runs: pl.DataFrame, fits: list[ScalingFit], *, title: str, metric: ResponseMetric | None = None) -> alt.Chart:
    """Runs (points), fitted models (lines) with the best model's bootstrap band (area); log-log axes.

    ``runs`` are prepared runs of one group; unlimited runs appear at
    ``limit_x`` (the machine's cores) when known, else they are not drawn.
    """
    pts = runs.filter(pl.col("limit_x").is_not_null()).select(
        "limit_label", pl.col("limit_x").alias("cores"), pl.col("wall_seconds").alias("seconds"),
        *[c for c in ("experiment", "run_id") if c in runs.columns],
    )
    x_scale = alt.Scale(type="log", domain=fitted_domain(pts["cores"], log=True), nice=False)
    y_values = list(pts["seconds"])
    if fits and pts.height:
        fitted = fit_curves(fits, float(pts["cores"].min()), float(pts["cores"].max()))
        y_values += [v for v in fitted.filter(pl.col("model") == fits[0].model)["seconds"]]
    y_scale = alt.Scale(type="log", domain=fitted_domain(y_values, log=True), nice=False)
    x = alt.X("cores:Q", scale=x_scale, title="CPU limit (cores, log scale)")
    y_title = "wall time (s, log scale)" if metric is None or metric.name == "wall_seconds" else cost_title(metric)
    y = alt.Y("seconds:Q", scale=y_scale, title=y_title)
    tips = [alt.Tooltip("limit_label:N", title="limit"), alt.Tooltip("seconds:Q", format=".2f", title="wall (s)")]
    tips += [alt.Tooltip(f"{c}:N") for c in ("experiment", "run_id") if c in pts.columns]
    layers = [alt.Chart(pts).mark_point(filled=True, size=60, color="black").encode(x, y, tooltip=tips)]
    if fits and pts.height:
        curves = fit_curves(fits, float(pts["cores"].min()), float(pts["cores"].max()))
        best = fits[0].model
        band = curves.filter((pl.col("model") == best) & pl.col("low").is_not_nan())
        if band.height:
            band = band.with_columns(pl.col("low").clip(y_scale.domain[0]), pl.col("high").clip(upper_bound=y_scale.domain[1]))
            layers.insert(0, alt.Chart(band).mark_area(opacity=0.2, clip=True).encode(
                x, alt.Y("low:Q", scale=y_scale, title=y_title), alt.Y2("high:Q"),
                tooltip=[alt.Tooltip("model:N"), alt.Tooltip("cores:Q", format=".2f"),
                         alt.Tooltip("low:Q", format=".2f", title="band low (s)"),
                         alt.Tooltip("high:Q", format=".2f", title="band high (s)")]))
        layers.append(alt.Chart(curves).mark_line().encode(
            x, y, color=alt.Color("model:N", title="model (best AIC first)", sort=[f.model for f in fits]),
            strokeDash=alt.condition(alt.datum.model == best, alt.value([1, 0]), alt.value([4, 3])),
            tooltip=[alt.Tooltip("model:N"), alt.Tooltip("cores:Q", format=".2f"),
                     alt.Tooltip("seconds:Q", format=".2f", title="fitted (s)"), alt.Tooltip("aic:Q", format=".1f")]))
    return alt.layer(*layers).properties(title=title, width=520, height=320)
