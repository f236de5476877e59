"""Per-stage comparison of concurrency configurations (semaphore on/off, worker counts).

Two kinds of input give the same %-change table:

* summaries (the wiki's k6 tables, :func:`throttlelab.ingest.published.published.load_semaphore`):
  ``config``, ``load``, ``stage``, ``avg_seconds``, ``p95_seconds``, ``max_seconds``;
* per-request stage timings (our load generator, or k6 output): summarised by
  :func:`stage_summary` into the same columns.

Caveats, stated with every measured table: requests of one closed-loop run
are not independent (they share the queue), so request-level Mann-Whitney
p-values are optimistic and only describe; verdicts come from the runs
(``run_*`` columns: per-run mean, Welch t on log run means, Bonferroni over the
table's cells; "too few to decide (runs)" with one run per configuration); and our
service's stage ``seconds`` include the semaphore wait (``wait_seconds`` holds
the waiting part), while the wiki's embedding times apparently did not (they
fell with the semaphore).

``%-change = (other - base) / base * 100``: negative is *better* (blue in the
wiki), positive *worse* (red).  Only per-request samples allow a test:
:func:`compare_stages` adds a two-sided Mann-Whitney U test per (load, stage),
the rank-biserial effect size, and Holm's correction over all the tests of the
table; summaries get the table without tests (a k6 summary holds three numbers
per stage, not the samples a test needs).

:func:`wiki_reproduction` checks the wiki's printed %-change table
(``max_workers=8``, :data:`WIKI_PERCENT_CHANGE_W8`) against the wiki's own
per-run tables: a printed value is *reproduced* when it lies in the range the
rounding of those tables allows (k6 prints 3 significant digits: whole ms
below 1 s, 10 ms steps above), *close* when within 1 point of it, *inconsistent*
otherwise (e.g. the score p95/max columns at 15-30 VUs repeat quality's values).
"""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy import stats as st

from throttlelab.analysis.stats import holm
from throttlelab.results import Estimate
from throttlelab.analysis.stats import run_level_columns, runs_of

STAT_COLUMNS = {"avg": "avg_seconds", "p95": "p95_seconds", "max": "max_seconds"}
STAGE_ORDER = ("embedding", "categories", "duplicates", "quality", "score", "total")
TESTS_UNAVAILABLE = ("summary data (avg/p95/max per stage, as k6 prints them) hold no per-request samples: "
                     "no Mann-Whitney test is possible, only the %-change")

#: The wiki's printed %-change table, max_workers=8, semaphore 4 vs none: VUs -> stage -> (avg, p95, max).
WIKI_PERCENT_CHANGE_W8: dict[int, dict[str, tuple[float, float, float]]] = {
    10: {"embedding": (-18.4, 0.2, 1.0), "categories": (-18.7, -17.6, -19.4), "duplicates": (-32.3, -26.2, -26.5),
         "quality": (-27.7, -4.5, -28.7), "score": (-13.3, -26.9, -28.7), "total": (-19.1, 1.0, 2.1)},
    15: {"embedding": (-15.4, 0.3, 0.4), "categories": (-84.8, -86.6, -85.4), "duplicates": (-86.5, -88.8, -88.8),
         "quality": (-84.6, -87.1, -85.7), "score": (-68.9, -87.1, -85.7), "total": (-43.5, -33.7, -32.3)},
    20: {"embedding": (-12.9, -1.5, 0.6), "categories": (-93.4, -93.2, -93.1), "duplicates": (-93.6, -93.3, -93.1),
         "quality": (-93.4, -94.0, -93.5), "score": (-72.9, -94.0, -93.5), "total": (-55.0, -48.0, -47.0)},
    25: {"embedding": (-12.4, -2.0, 4.8), "categories": (-94.5, -95.8, -95.7), "duplicates": (-94.6, -96.1, -96.1),
         "quality": (-94.3, -95.7, -95.6), "score": (-62.5, -95.7, -95.6), "total": (-59.6, -54.6, -54.5)},
    30: {"embedding": (-12.5, -4.5, 0.6), "categories": (-96.3, -96.7, -96.4), "duplicates": (-96.5, -97.0, -96.8),
         "quality": (-96.3, -97.0, -96.5), "score": (-75.1, -97.0, -96.5), "total": (-63.0, -56.3, -55.0)},
}


def _direction(pct: pl.Expr) -> pl.Expr:
    return pl.when(pct < 0).then(pl.lit("better")).when(pct > 0).then(pl.lit("worse")).otherwise(pl.lit("same"))


def percent_change_table(summary: pl.DataFrame, base: str, other: str, *, stats=("avg", "p95", "max"),
                         by: tuple[str, ...] = ("load", "stage")) -> pl.DataFrame:
    """%-change of each statistic from configuration ``base`` to ``other`` (long form).

    Returns columns ``by``, ``stat``, ``base_seconds``, ``other_seconds``,
    ``percent_change``, ``direction`` (better / worse / same).  Rows missing in
    either configuration are kept with a null change (never dropped).
    """
    configs = set(summary["config"].unique().to_list())
    for c in (base, other):
        if c not in configs:
            raise ValueError(f"no configuration {c!r}; have {', '.join(sorted(configs))}")
    long = summary.unpivot(index=["config", *by], on=[STAT_COLUMNS[s] for s in stats], variable_name="stat",
                           value_name="seconds").with_columns(pl.col("stat").str.strip_suffix("_seconds").replace({"avg": "avg"}))
    a = long.filter(pl.col("config") == base).drop("config").rename({"seconds": "base_seconds"})
    b = long.filter(pl.col("config") == other).drop("config").rename({"seconds": "other_seconds"})
    out = a.join(b, on=[*by, "stat"], how="full", coalesce=True)
    pct = (pl.col("other_seconds") - pl.col("base_seconds")) / pl.col("base_seconds") * 100
    out = out.with_columns(pct.alias("percent_change")).with_columns(_direction(pl.col("percent_change")).alias("direction"))
    return _order(out, by)


def _order(df: pl.DataFrame, by) -> pl.DataFrame:
    keys = []
    if "stage" in df.columns:
        df = df.with_columns(pl.col("stage").replace_strict({s: i for i, s in enumerate(STAGE_ORDER)}, default=99,
                                                            return_dtype=pl.Int64).alias("_s"))
        keys.append("_s")
    if "stat" in df.columns:
        df = df.with_columns(pl.col("stat").replace_strict({"avg": 0, "p50": 1, "p95": 2, "max": 3}, default=9,
                                                           return_dtype=pl.Int64).alias("_t"))
        keys.append("_t")
    front = [c for c in by if c != "stage"]
    return df.sort([*front, *keys]).drop([k for k in ("_s", "_t") if k in df.columns])


def wiki_layout(table: pl.DataFrame) -> pl.DataFrame:
    """The wiki's layout: one row per load, one column per stage, ``"−18.4%/+0.2%/+1.0%"``.

    The wiki marks cells with coloured emoji; the sign says the same and renders with any font.
    """
    cell = table.with_columns(pl.concat_str(pl.col("percent_change").round(1).map_elements(
        lambda v: f"{v:+.1f}%".replace("-", "−"), return_dtype=pl.String)).alias("cell"))
    joined = cell.group_by("load", "stage", maintain_order=True).agg(pl.col("cell").str.join("/"))
    wide = joined.pivot(on="stage", index="load", values="cell").sort("load")
    return wide.select("load", *[s for s in STAGE_ORDER if s in wide.columns],
                       *[s for s in wide.columns if s not in ("load", *STAGE_ORDER)])


def _half_unit(v: pl.Expr) -> pl.Expr:
    """Half of the last printed digit of a k6 duration (whole ms below 1 s, 2 decimals above)."""
    return pl.when(v < 1).then(0.0005).otherwise(0.005)


def wiki_reproduction(semaphore: pl.DataFrame, *, max_workers: int = 8) -> pl.DataFrame:
    """Recompute the wiki's %-change table from its per-run tables and compare with the printed one.

    Returns the long %-change table plus ``percent_printed``, ``percent_min`` /
    ``percent_max`` (range allowed by the rounding of the per-run values),
    ``difference`` (printed - computed, points) and ``verdict``
    (``reproduced`` / ``close`` (within 1 point) / ``inconsistent``).
    """
    if max_workers != 8:
        raise ValueError("the wiki printed a %-change table only for max_workers=8")
    sub = semaphore.filter(pl.col("max_workers") == max_workers)
    table = percent_change_table(sub, f"workers={max_workers},semaphore=none", f"workers={max_workers},semaphore=4")
    printed = pl.DataFrame([{"load": float(v), "stage": s, "stat": k, "percent_printed": p}
                            for v, row in WIKI_PERCENT_CHANGE_W8.items() for s, t in row.items()
                            for k, p in zip(("avg", "p95", "max"), t)])
    a, b = pl.col("base_seconds"), pl.col("other_seconds")
    out = table.join(printed, on=["load", "stage", "stat"], how="left").with_columns(
        (((b - _half_unit(b)) / (a + _half_unit(a)) - 1) * 100).alias("percent_min"),
        (((b + _half_unit(b)) / (a - _half_unit(a)) - 1) * 100).alias("percent_max"),
        (pl.col("percent_printed") - pl.col("percent_change")).alias("difference"),
    )
    inside = (pl.col("percent_printed") >= pl.col("percent_min") - 0.05) & (pl.col("percent_printed") <= pl.col("percent_max") + 0.05)
    return out.with_columns(
        pl.when(inside).then(pl.lit("reproduced")).when(pl.col("difference").abs() <= 1.0).then(pl.lit("close"))
        .otherwise(pl.lit("inconsistent")).alias("verdict"))


def stage_summary(stage_timings: pl.DataFrame, by: tuple[str, ...] = ("config", "load", "stage")) -> pl.DataFrame:
    """avg / p95 / max seconds and n per group (the k6 summary columns) from per-request stage timings."""
    return (stage_timings.filter(pl.col("seconds").is_not_null()).group_by(*by)
            .agg(pl.col("seconds").mean().alias("avg_seconds"),
                 pl.col("seconds").quantile(0.95, interpolation="linear").alias("p95_seconds"),
                 pl.col("seconds").max().alias("max_seconds"), pl.len().alias("n"))
            .pipe(_order, [c for c in by if c != "config"]).sort("config", maintain_order=True))


def compare_stages(stage_timings: pl.DataFrame, base: str, other: str, *, alpha: float = 0.05, min_n: int = 5,
                   by: tuple[str, ...] = ("load", "stage")) -> pl.DataFrame:
    """Per (load, stage): %-change of avg/p95/max and a Mann-Whitney U test of ``other`` vs ``base``.

    Returns one row per group: ``n_base``, ``n_other``, ``avg/p95/max`` %-changes,
    ``median_change_percent``, ``u_statistic``, ``p_value``, ``p_holm`` (over all
    rows), ``rank_biserial`` (in [-1, 1]; negative = ``other`` faster), and
    ``verdict``: better / worse / "no difference shown" / "not enough data to decide"
    (fewer than ``min_n`` samples on a side).
    """
    summ = stage_summary(stage_timings, ("config", *by))
    pct = percent_change_table(summ, base, other, by=by).pivot(on="stat", index=list(by), values="percent_change")
    pct = pct.rename({s: f"{s}_change_percent" for s in ("avg", "p95", "max") if s in pct.columns})
    rows = []
    data = stage_timings.filter(pl.col("seconds").is_not_null())
    parts = data.partition_by(list(by), as_dict=True, maintain_order=True)
    n_groups = len(parts)
    for key, g in parts.items():
        x = g.filter(pl.col("config") == other)["seconds"].to_numpy()
        y = g.filter(pl.col("config") == base)["seconds"].to_numpy()
        row = dict(zip(by, key)) | {"n_base": int(y.size), "n_other": int(x.size)}
        row |= run_level_columns(runs_of(g.filter(pl.col("config") == other), "seconds"),
                                 runs_of(g.filter(pl.col("config") == base), "seconds"), "mean", alpha=alpha,
                                 family=n_groups)
        if x.size >= min_n and y.size >= min_n:
            u = st.mannwhitneyu(x, y, alternative="two-sided")
            row |= {"u_statistic": float(u.statistic), "p_value": float(u.pvalue),
                    "rank_biserial": float(2 * u.statistic / (x.size * y.size) - 1),
                    "median_change_percent": float((np.median(x) / np.median(y) - 1) * 100)}
        else:
            row |= {"u_statistic": None, "p_value": None, "rank_biserial": None, "median_change_percent": None}
        rows.append(row)
    tests = pl.DataFrame(rows, schema_overrides={"u_statistic": pl.Float64, "p_value": pl.Float64,
                                                 "rank_biserial": pl.Float64, "median_change_percent": pl.Float64,
                                                 "run_change_percent": pl.Float64, "run_change_low": pl.Float64,
                                                 "run_change_high": pl.Float64, "run_p_value": pl.Float64,
                                                 "run_p_bonferroni": pl.Float64, "runs_needed_for_10pct": pl.Int64})
    tests = tests.with_columns(pl.Series("p_holm", holm(tests["p_value"].fill_null(np.nan).to_numpy()), pl.Float64)
                               .fill_nan(None))
    # The verdict is the run-level one (runs are the units; Bonferroni, so it agrees with its interval); the
    # request-level Mann-Whitney columns stay as description.
    verdict = (pl.when((pl.col("n_base") < min_n) | (pl.col("n_other") < min_n)).then(pl.lit("not enough data to decide"))
               .when(pl.col("run_verdict") == "too few to decide").then(pl.lit("too few to decide (runs)"))
               .when(pl.col("run_verdict") == "no difference shown").then(pl.lit("no difference shown"))
               .when(pl.col("run_verdict") == "faster").then(pl.lit("better")).otherwise(pl.lit("worse")))
    out = tests.join(pct, on=list(by), how="left").with_columns(verdict.alias("verdict"))
    return _order(out, by)


def analyse_measured_stages(stage_timings: pl.DataFrame, *, base: str | None = None, other: str | None = None,
                            alpha: float = 0.05) -> dict:
    """Everything notebook 06 shows for measured stage timings.

    ``base``/``other`` default to the configuration without a semaphore and the
    first one with one (same worker count when possible).  Returns ``summary``
    (avg/p95/max/n per config, load, stage), ``percent_change`` (long),
    ``tests`` (:func:`compare_stages`), ``base``, ``other``; or ``{"note": ...}``
    when fewer than two configurations are present.
    """
    configs = sorted(stage_timings["config"].drop_nulls().unique().to_list())
    if base is None:
        base = next((c for c in configs if c.endswith("semaphore=none")), configs[0] if configs else None)
    if other is None:
        prefix = base.split(",")[0] if base else ""
        cands = [c for c in configs if c != base]
        other = next((c for c in cands if c.startswith(prefix + ",")), cands[0] if cands else None)
    if base is None or other is None:
        return {"note": f"not enough data to decide: need two configurations, have {configs}"}
    summary = stage_summary(stage_timings)
    return {"summary": summary, "percent_change": percent_change_table(summary, base, other),
            "tests": compare_stages(stage_timings, base, other, alpha=alpha), "base": base, "other": other}


LIGHT_STAGES = ("categories", "duplicates", "quality", "score")


def measured_headlines(measured: dict, *, alpha: float = 0.05) -> list[str]:
    """One-line findings of :func:`analyse_measured_stages` for the reports index."""
    t = measured["tests"]
    light = t.filter(pl.col("stage").is_in(LIGHT_STAGES))
    better = light.filter(pl.col("verdict") == "better").height
    lines = [f"Measured ({measured['other']} vs {measured['base']}): light stages faster in {better}/{light.height} "
             f"(load, stage) cells after Holm correction (alpha {alpha})"]
    tot = t.filter(pl.col("stage") == "total").sort("load")
    if tot.height:
        r = tot.row(-1, named=True)
        rb = r["rank_biserial"] if r["rank_biserial"] is not None else float("nan")
        ph = r["p_holm"] if r["p_holm"] is not None else float("nan")
        lines.append(f"Measured total at {r['load']:g} VUs: avg {r['avg_change_percent']:+.0f}%, "
                     f"rank-biserial {rb:+.2f}, Holm p={ph:.2g} ({r['verdict']})")
    return lines


K6_ROUNDING = ("range the rounding of k6's printed seconds allows; one k6 run per configuration: run-to-run noise "
               "is not measured, so no test and no run-level interval is possible")


def published_change(semaphore: pl.DataFrame, *, stat: str = "p95", stage: str = "total", load: float = 30.0,
                     max_workers: int = 8) -> Estimate:
    """%-change with the semaphore of one published cell as an :class:`Estimate` (interval: k6 rounding only)."""
    sub = semaphore.filter(pl.col("max_workers") == max_workers)
    t = percent_change_table(sub, f"workers={max_workers},semaphore=none", f"workers={max_workers},semaphore=4")
    r = t.filter((pl.col("load") == load) & (pl.col("stage") == stage) & (pl.col("stat") == stat)).row(0, named=True)
    a, b = r["base_seconds"], r["other_seconds"]
    ha, hb = (0.0005 if a < 1 else 0.005), (0.0005 if b < 1 else 0.005)
    return Estimate(float(r["percent_change"]), float(((b - hb) / (a + ha) - 1) * 100),
                    float(((b + hb) / (a - ha) - 1) * 100), 1.0, f"published k6 {stat}, {stage} stage, {load:g} VUs, "
                    f"max_workers={max_workers}", None, None, "pct", K6_ROUNDING)
