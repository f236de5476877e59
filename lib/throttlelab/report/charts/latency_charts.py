"""Charts of response times: against contention, per stage, and %-change tables.

Every function takes tidy polars frames (as the analysis functions return
them) and returns an altair chart with a title, axis titles with units and
tooltips.  Colours of %-changes: blue = better (faster), orange = worse
(slower), on a scale centred at zero (colour-blind safe, unlike the wiki's red/blue).
Categorical loads are ordered by number, not as text.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import polars as pl

from throttlelab.report.charts.style import DIVERGING, numeric_order, zero_centred


def better_worse(values) -> alt.Scale:
    """Diverging colour scale for %-changes, symmetric around zero (blue = faster)."""
    return alt.Scale(scheme=DIVERGING, domain=zero_centred(values), domainMid=0)


def _clean(df: pl.DataFrame) -> pl.DataFrame:
    """NaN -> null (vega-lite specs are JSON, which has no NaN)."""
    import polars.selectors as cs

    return df.with_columns(cs.float().fill_nan(None))


def response_vs_contention(points: pl.DataFrame, *, y: str = "mean_ms", low: str | None = None, high: str | None = None,
                           color: str = "load", x: str = "contention", curves: pl.DataFrame | None = None,
                           knees: pl.DataFrame | None = None, title: str = "Response time vs neighbour CPU share",
                           y_title: str = "mean response time (ms)", color_title: str | None = None) -> alt.LayerChart:
    """Points (and intervals) of a response-time statistic per contention share, one colour per ``color``.

    ``curves`` (columns ``x``, ``y``, ``color``) are drawn as lines (fitted models);
    ``knees`` (columns ``knee``, ``knee_low``, ``knee_high``, ``color``) as vertical rules with a band.
    """
    legend = color_title or color
    df = _clean(points).with_columns((pl.col(x) * 100).alias("share_pct"), _series(pl.col(color)))
    enc_x = alt.X("share_pct:Q", title="neighbour CPU share of the machine (%)")
    tips = [alt.Tooltip("share_pct:Q", title="share (%)", format=".0f"), alt.Tooltip("series:N", title=legend),
            alt.Tooltip(f"{y}:Q", title=y_title, format=".3g")]
    order = numeric_order(df["series"].to_list())
    base = alt.Chart(df).encode(x=enc_x, color=alt.Color("series:N", title=legend, sort=order,
                                                         scale=alt.Scale(domain=order)))
    layers = [base.mark_point(filled=True, size=60).encode(y=alt.Y(f"{y}:Q", title=y_title), tooltip=tips)]
    if low and high:
        layers.append(base.mark_errorbar().encode(y=alt.Y(f"{low}:Q", title=y_title), y2=f"{high}:Q"))
    if curves is not None and curves.height:
        c = _clean(curves).with_columns((pl.col("x") * 100).alias("share_pct"), _series(pl.col("color")))
        layers.append(alt.Chart(c).mark_line(strokeDash=[4, 3]).encode(
            x="share_pct:Q", y="y:Q", color="series:N", detail="series:N",
            tooltip=[alt.Tooltip("series:N", title=legend), alt.Tooltip("y:Q", title="fitted", format=".3g")]))
    if knees is not None and knees.height:
        k = _clean(knees).filter(pl.col("knee").is_not_null()).with_columns(*[pl.col(c) * 100 for c in ("knee", "knee_low", "knee_high")],
                               _series(pl.col("color")))
        layers.append(alt.Chart(k).mark_rect(opacity=0.12).encode(x="knee_low:Q", x2="knee_high:Q", color="series:N"))
        layers.append(alt.Chart(k).mark_rule(strokeWidth=2).encode(
            x="knee:Q", color="series:N",
            tooltip=[alt.Tooltip("series:N", title=legend), alt.Tooltip("knee:Q", title="knee (%)", format=".0f"),
                     alt.Tooltip("knee_low:Q", title="low (%)", format=".0f"),
                     alt.Tooltip("knee_high:Q", title="high (%)", format=".0f")]))
    return alt.layer(*layers).properties(title=title, width=520, height=300)


def _series(col: pl.Expr) -> pl.Expr:
    """A legend label: text, with whole numbers shown without ``.0`` (``"5.0"`` -> ``"5"``)."""
    return col.cast(pl.String).str.replace(r"^(-?\d+)\.0+$", "${1}").alias("series")


def fitted_curves(fits: dict, groups: list[tuple[str, float | None]], x_max: float = 0.75, n: int = 60) -> pl.DataFrame:
    """Sample fitted curves for :func:`response_vs_contention`: ``fits[(model, group)]`` at ``groups``
    (group name, request rate), in ms."""
    xs = np.linspace(0, x_max, n)
    rows = []
    for (model, group), fit in fits.items():
        for name, rate in groups:
            if group == name:
                ys = fit.predict(xs, rate) * 1000
                rows += [{"x": float(a), "y": float(b), "color": name, "model": model} for a, b in zip(xs, ys)
                         if np.isfinite(b)]
    return pl.DataFrame(rows, schema={"x": pl.Float64, "y": pl.Float64, "color": pl.String, "model": pl.String})


def percent_change_heatmap(table: pl.DataFrame, *, title: str = "Change with the semaphore (blue = faster, orange = slower)",
                           load_title: str = "virtual users") -> alt.Chart:
    """%-change per stage x load, one panel per statistic (long table of
    :func:`throttlelab.analysis.latency.concurrency.percent_change_table`)."""
    df = _clean(table).with_columns(pl.col("percent_change").round(1).alias("pct"),
                            pl.col("load").cast(pl.Int64).cast(pl.String).alias("load_label"))
    stages = [s for s in ("embedding", "categories", "duplicates", "quality", "score", "total") if s in df["stage"]]
    enc = dict(x=alt.X("load_label:O", title=load_title, sort=numeric_order(df["load_label"].to_list()),
                       axis=alt.Axis(labelAngle=0)), y=alt.Y("stage:N", title="stage", sort=stages))
    tips = [alt.Tooltip("stage:N"), alt.Tooltip("load_label:O", title=load_title), alt.Tooltip("stat:N"),
            alt.Tooltip("base_seconds:Q", title="before (s)", format=".3g"),
            alt.Tooltip("other_seconds:Q", title="after (s)", format=".3g"),
            alt.Tooltip("pct:Q", title="change (%)", format="+.1f")]
    rect = alt.Chart().mark_rect().encode(**enc, color=alt.Color("pct:Q", title="change (%)",
                                                                 scale=better_worse(df["pct"].to_list())),
                                          tooltip=tips)
    text = alt.Chart().mark_text(fontSize=10).encode(
        **enc, text=alt.Text("pct:Q", format="+.1f"),
        color=alt.condition("abs(datum.pct) > 50", alt.value("white"), alt.value("black")))
    width = 52 * max(1, df["load_label"].n_unique())
    return alt.layer(rect, text, data=df).properties(width=width, height=22 * max(1, len(stages))).facet(column=alt.Column("stat:N", title="statistic", sort=["avg", "p95", "max"])) \
        .properties(title=title)


def stage_bars(summary: pl.DataFrame, *, stat: str = "avg_seconds", title: str = "Time per stage",
               load_title: str = "virtual users") -> alt.Chart:
    """Bars of a per-stage statistic per configuration, one panel per load."""
    df = _clean(summary).with_columns(pl.col("load").cast(pl.Int64).cast(pl.String).alias("load_label"))
    stages = [s for s in ("embedding", "categories", "duplicates", "quality", "score", "total") if s in df["stage"]]
    return alt.Chart(df).mark_bar().encode(
        x=alt.X("stage:N", sort=stages, title="stage"),
        xOffset="config:N",
        y=alt.Y(f"{stat}:Q", title=f"{stat.replace('_seconds', '')} time (s)"),
        color=alt.Color("config:N", title="configuration"),
        column=alt.Column("load_label:O", title=load_title, sort=None),
        tooltip=["config:N", "stage:N", alt.Tooltip("load_label:O", title=load_title),
                 alt.Tooltip(f"{stat}:Q", format=".3g")],
    ).properties(title=title, width=160, height=220)


def latency_ecdf(requests: pl.DataFrame, *, color: str = "contention", title: str = "Response-time distribution") -> alt.Chart:
    """Empirical CDF of the latency of answered requests, one line per ``color`` value."""
    ok = requests.filter((pl.col("status") == "ok") & pl.col("latency_seconds").is_not_null())
    df = (ok.select(pl.col(color).cast(pl.String).alias("series"), (pl.col("latency_seconds") * 1000).alias("ms"))
          .sort("series", "ms")
          .with_columns(((pl.int_range(pl.len()).over("series") + 1) / pl.len().over("series")).alias("fraction")))
    return alt.Chart(df).mark_line(interpolate="step-after").encode(
        x=alt.X("ms:Q", title="response time (ms)", scale=alt.Scale(type="log")),
        y=alt.Y("fraction:Q", title="fraction of answered requests"),
        color=alt.Color("series:N", title=color),
        tooltip=[alt.Tooltip("series:N", title=color), alt.Tooltip("ms:Q", format=".1f"),
                 alt.Tooltip("fraction:Q", format=".2f")],
    ).properties(title=title, width=520, height=260)


def response_vs_workers(summary: pl.DataFrame, *, stats: tuple[str, ...] = ("mean", "p90", "p95"),
                        title: str = "Response time vs the neighbour's busy workers (same CPU share)") -> alt.LayerChart:
    """Statistics of response time (lines and points) with their interval bands against the neighbour's worker count.

    ``summary`` is the ``summary`` table of
    :func:`throttlelab.analysis.latency.neighbour_workers.analyse_neighbour_workers`
    (``neighbour_workers``, ``<stat>_seconds``, ``<stat>_low``, ``<stat>_high``;
    ``load`` when present gives one dash style per load).
    """
    has_load = "load" in summary.columns and summary["load"].n_unique() > 1
    keep = ["neighbour_workers", "n_ok", *(["load"] if "load" in summary.columns else [])]
    parts = [summary.select(*keep, pl.lit(s).alias("stat"), (pl.col(f"{s}_seconds") * 1000).alias("ms"),
                            (pl.col(f"{s}_low") * 1000).alias("low_ms"), (pl.col(f"{s}_high") * 1000).alias("high_ms"))
             for s in stats]
    df = _clean(pl.concat(parts, how="vertical_relaxed"))
    df = df.with_columns((pl.col("load").cast(pl.String) if "load" in df.columns else pl.lit("")).alias("load_label"))
    x = alt.X("neighbour_workers:Q", title="busy workers of the noisy neighbour", axis=alt.Axis(tickMinStep=1))
    color = alt.Color("stat:N", title="statistic", sort=list(stats))
    detail = alt.Detail("load_label:N")
    tips = [alt.Tooltip("stat:N", title="statistic"), alt.Tooltip("neighbour_workers:Q", title="workers"),
            alt.Tooltip("ms:Q", title="response time (ms)", format=".1f"),
            alt.Tooltip("low_ms:Q", title="95% CI low (ms)", format=".1f"),
            alt.Tooltip("high_ms:Q", title="95% CI high (ms)", format=".1f"),
            alt.Tooltip("n_ok:Q", title="answered requests"), alt.Tooltip("load_label:N", title="load")]
    base = alt.Chart(df).encode(x=x, color=color, detail=detail)
    dash = {"strokeDash": alt.StrokeDash("load_label:N", title="load")} if has_load else {}
    band = base.mark_area(opacity=0.15).encode(y=alt.Y("low_ms:Q", title="response time (ms)"), y2="high_ms:Q")
    line = base.mark_line().encode(y="ms:Q", **dash)
    points = base.mark_point(filled=True, size=50).encode(y="ms:Q", tooltip=tips)
    return alt.layer(band, line, points).properties(title=title, width=480, height=300)
