"""Run time against CPU limit: runs, fitted scaling curves with the best one's band, and where the fit misses."""

from __future__ import annotations

import altair as alt
import numpy as np
import polars as pl

from throttlelab.analysis.runs import ResponseMetric

from throttlelab.analysis.limits import MODEL_ORDER, ScalingFit
from throttlelab.core.quantities import format_cores
from throttlelab.report.charts.style import WIDTH, fitted_domain


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


#: A fit "misses" a limit when the runs' geometric mean there is more than this factor off the curve.
MISS_FACTOR = 1.5
#: Curves closer than this (largest |log ratio| over the limits) are one line, named together in the legend.
SAME_CURVE = 0.01
MISS_COLOR = "#D55E00"


def fit_misses(runs: pl.DataFrame, fit: ScalingFit, *, factor: float = MISS_FACTOR) -> tuple[list[tuple[float, float]], int]:
    """Limits where ``fit`` misses the runs, and how many limits there are.

    Returns ``([(cores, measured / fitted), ...], limits)``: each limit whose geometric-mean run (columns ``cores``,
    ``seconds``) is more than ``factor`` times off the fitted curve, in limit order.
    """
    if runs.height == 0:
        return [], 0
    gm = (runs.filter(pl.col("seconds") > 0).group_by("cores").agg(pl.col("seconds").log().mean().exp().alias("gm"))
          .sort("cores"))
    out = []
    for cores, value in gm.iter_rows():
        fitted = float(np.asarray(fit.predict_time(np.array([cores])))[0])
        if np.isfinite(fitted) and fitted > 0 and max(value / fitted, fitted / value) > factor:
            out.append((float(cores), float(value / fitted)))
    return out, gm.height


def miss_note(misses: list[tuple[float, float]], limits: int, model: str, *, factor: float = MISS_FACTOR) -> str:
    """One sentence saying where the fitted line misses the runs ("" when it misses none).

    >>> miss_note([(7.0, 2.16), (12.0, 0.487)], 12, "quota")
    'The fitted line (quota) misses the runs by more than 1.5x at 2 of 12 limits (most: 2.2x above it at 7 cores, 2.1x below it at 12 cores): read the points, not the line.'
    """
    if not misses:
        return ""
    worst = []
    above = [m for m in misses if m[1] > 1]
    below = [m for m in misses if m[1] < 1]
    if above:
        c, r = max(above, key=lambda m: m[1])
        worst.append(f"{r:.1f}x above it at {format_cores(c, suffix=' cores')}")
    if below:
        c, r = min(below, key=lambda m: m[1])
        worst.append(f"{1 / r:.1f}x below it at {format_cores(c, suffix=' cores')}")
    where = (f"at {format_cores(misses[0][0], suffix=' cores')} ({worst[0].split(' at ')[0]})" if len(misses) == 1
             else f"at {len(misses)} of {limits} limits (most: {', '.join(worst)})")
    return f"The fitted line ({model}) misses the runs by more than {factor:g}x {where}: read the points, not the line."


def curve_groups(curves: pl.DataFrame, order: list[str]) -> dict[str, str]:
    """Model -> legend name; models whose curves coincide (within :data:`SAME_CURVE`) share the better one's line
    (the first in ``order``), named together in the models' fixed order (``"amdahl = usl = quota"``)."""
    ys = {m: curves.filter(pl.col("model") == m)["seconds"].to_numpy() for m in order}
    lead: dict[str, str] = {}
    for m in order:
        lead[m] = next((k for k in order[:order.index(m)] if lead[k] == k and _same(ys[k], ys[m])), m)
    fixed = sorted(order, key=lambda m: (MODEL_ORDER.index(m) if m in MODEL_ORDER else len(MODEL_ORDER), m))
    return {m: " = ".join(k for k in fixed if lead[k] == lead[m]) for m in order}


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    ok = np.isfinite(a) & np.isfinite(b) & (a > 0) & (b > 0)
    return bool(ok.any()) and float(np.max(np.abs(np.log(a[ok] / b[ok])))) < SAME_CURVE


def scaling_chart(runs: pl.DataFrame, fits: list[ScalingFit], *, title: str, metric: ResponseMetric | None = None) -> alt.Chart:
    """Runs (points), fitted models (lines) with the best model's bootstrap band (area); log-log axes.

    ``runs`` are prepared runs of one group; unlimited runs appear at
    ``limit_x`` (the machine's cores) when known, else they are not drawn.
    Models whose curves coincide are one line named together in the legend; where the best model misses the
    runs by more than :data:`MISS_FACTOR`, the chart says so under its title.
    """
    pts = runs.filter(pl.col("limit_x").is_not_null()).select(
        "limit_label", pl.col("limit_x").alias("cores"), pl.col("wall_seconds").alias("seconds"),
        *[c for c in ("experiment", "run_id") if c in runs.columns],
    ).with_columns(what=pl.lit("runs"))
    x_scale = alt.Scale(type="log", domain=fitted_domain(pts["cores"], log=True), nice=False)
    y_values = list(pts["seconds"])
    curves = None
    if fits and pts.height:
        curves = fit_curves(fits, float(pts["cores"].min()), float(pts["cores"].max()))
        best_curve = curves.filter(pl.col("model") == fits[0].model)
        y_values += list(best_curve["seconds"])
        # the band is shown whole unless it reaches beyond 3x the runs and the curve (an unbounded bootstrap band)
        finite = [v for v in y_values if v is not None and np.isfinite(v) and v > 0]
        lo, hi = (min(finite), max(finite)) if finite else (0.0, 0.0)
        y_values += [v for v in [*best_curve["low"], *best_curve["high"]]
                     if v is not None and np.isfinite(v) and lo / 3 <= v <= hi * 3]
    y_scale = alt.Scale(type="log", domain=fitted_domain(y_values, log=True), nice=False)
    x = alt.X("cores:Q", scale=x_scale, title="CPU limit (cores, log scale)")
    y_title = "wall time (s, log scale)" if metric is None or metric.name == "wall_seconds" else cost_title(metric)
    y = alt.Y("seconds:Q", scale=y_scale, title=y_title)
    tips = [alt.Tooltip("limit_label:N", title="limit"), alt.Tooltip("seconds:Q", format=".2f", title="wall (s)")]
    tips += [alt.Tooltip(f"{c}:N") for c in ("experiment", "run_id") if c in pts.columns]
    layers = [alt.Chart(pts).mark_point(filled=True, size=60, color="black", opacity=0.8).encode(
        x, y, shape=alt.Shape("what:N", scale=alt.Scale(domain=["runs"], range=["circle"]), title=""),
        tooltip=tips)]
    note = ""
    if curves is not None:
        best = fits[0].model
        names = curve_groups(curves, [f.model for f in fits])
        drawn = [f.model for f in fits if names[f.model].split(" = ")[0] == f.model]
        lines = curves.filter(pl.col("model").is_in(drawn)).with_columns(
            pl.col("model").replace_strict(names).alias("name"))
        legend_order = [names[m] for m in drawn]
        band = curves.filter((pl.col("model") == best) & pl.col("low").is_not_nan())
        if band.height:
            band = band.with_columns(pl.col("low").clip(y_scale.domain[0]), pl.col("high").clip(upper_bound=y_scale.domain[1]),
                                     band=pl.lit(f"95% band of {names[best]}"))
            layers.insert(0, alt.Chart(band).mark_area(opacity=0.3, clip=True).encode(
                x, alt.Y("low:Q", scale=y_scale, title=y_title), alt.Y2("high:Q"),
                fill=alt.Fill("band:N", scale=alt.Scale(range=["#56B4E9"]), title=""),
                tooltip=[alt.Tooltip("model:N"), alt.Tooltip("cores:Q", format=".2f"),
                         alt.Tooltip("low:Q", format=".2f", title="band low (s)"),
                         alt.Tooltip("high:Q", format=".2f", title="band high (s)")]))
        # colour and dash on the same field, title and domain: one legend showing each line as drawn
        dashes = [[1, 0] if i == 0 else [4, 3] for i in range(len(legend_order))]
        legend_title = "fitted model (best AIC first)"
        layers.append(alt.Chart(lines).mark_line().encode(
            x, y, color=alt.Color("name:N", title=legend_title, sort=legend_order, scale=alt.Scale(domain=legend_order)),
            strokeDash=alt.StrokeDash("name:N", title=legend_title, sort=legend_order,
                                      scale=alt.Scale(domain=legend_order, range=dashes)),
            tooltip=[alt.Tooltip("name:N", title="model"), alt.Tooltip("cores:Q", format=".2f"),
                     alt.Tooltip("seconds:Q", format=".2f", title="fitted (s)"), alt.Tooltip("aic:Q", format=".1f")]))
        note = miss_note(*fit_misses(pts, fits[0]), names[best])
    heading = {"text": title, "subtitle": note, "subtitleColor": MISS_COLOR, "subtitleFontSize": 12,
               "subtitleFontWeight": "bold"} if note else title
    return alt.layer(*layers).properties(title=heading, width=WIDTH, height=320)
