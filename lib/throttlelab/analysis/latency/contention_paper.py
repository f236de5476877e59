"""The contention paper's table 1, rebuilt from the published CSV and checked.

Table 1 of the contention paper (seed 001) gives the mean response time of a
php-apache target at 150/300/450 requests per 30 s while a stress pod holds
0-70% of the node's CPU, and its % increase over 0%.  :func:`paper_table1`
rebuilds it from ``data/published/contention_response_time.csv`` and checks
every printed % against what the (rounded) milliseconds allow: the printed
times are whole milliseconds, so a % is *consistent* when it lies in the range
the unrounded times could give ([ms - 0.5, ms + 0.5] for both numbers, plus the
0.5 rounding of the printed %).

The queueing-style fits of the same points are in
:mod:`throttlelab.analysis.latency.response_curves`.
"""

from __future__ import annotations

import polars as pl

from throttlelab.results import Estimate

ROUNDING_ONLY = ("range the whole-millisecond rounding of the two published means allows; one published mean per "
                 "cell: run-to-run noise is not measured, so no test and no run-level interval is possible")

#: Table 1 of the paper as printed: % increase over 0% per request count and stress share.
PAPER_TABLE1_PERCENT: dict[int, dict[float, int]] = {
    150: {0.0: 0, 0.2: 9, 0.4: 55, 0.5: 74, 0.6: 164, 0.65: 219, 0.7: 226},
    300: {0.0: 0, 0.2: 25, 0.4: 64, 0.5: 103, 0.6: 166, 0.65: 240, 0.7: 263},
    450: {0.0: 0, 0.2: 23, 0.4: 59, 0.5: 99, 0.6: 200, 0.65: 250, 0.7: 361},
}


def paper_table1(contention: pl.DataFrame) -> pl.DataFrame:
    """Table 1 in long form, with computed and printed % increases.

    Parameters
    ----------
    contention
        :func:`throttlelab.ingest.published.published.load_contention`.

    Returns
    -------
    polars.DataFrame
        ``requests_per_30s``, ``contention``, ``mean_ms``, ``percent`` (computed from
        the table's ms, one decimal), ``percent_rounded`` (whole %, as printed),
        ``percent_printed``, ``percent_min``/``percent_max`` (range the rounding of
        the ms allows), ``consistent``.
    """
    df = contention.with_columns(pl.col("contention").round(4), (pl.col("mean_latency_seconds") * 1000).round(3).alias("mean_ms"))
    base = df.filter(pl.col("contention") == 0).select("requests_per_30s", pl.col("mean_ms").alias("base_ms"))
    df = df.join(base, on="requests_per_30s", how="left")
    printed = pl.DataFrame([{"requests_per_30s": r, "contention": x, "percent_printed": p}
                            for r, row in PAPER_TABLE1_PERCENT.items() for x, p in row.items()],
                           schema={"requests_per_30s": pl.Int64, "contention": pl.Float64, "percent_printed": pl.Int64})
    out = df.join(printed, on=["requests_per_30s", "contention"], how="left").select(
        "requests_per_30s", "contention", "mean_ms",
        ((pl.col("mean_ms") / pl.col("base_ms") - 1) * 100).round(1).alias("percent"),
        ((pl.col("mean_ms") / pl.col("base_ms") - 1) * 100).round(0).cast(pl.Int64).alias("percent_rounded"),
        "percent_printed",
        (((pl.col("mean_ms") - 0.5) / (pl.col("base_ms") + 0.5) - 1) * 100).alias("percent_min"),
        (((pl.col("mean_ms") + 0.5) / (pl.col("base_ms") - 0.5) - 1) * 100).alias("percent_max"),
    ).with_columns(
        pl.when(pl.col("contention") == 0).then(pl.lit(0.0)).otherwise(pl.col("percent_min")).alias("percent_min"),
        pl.when(pl.col("contention") == 0).then(pl.lit(0.0)).otherwise(pl.col("percent_max")).alias("percent_max"),
    )
    return out.with_columns(
        ((pl.col("percent_printed") >= pl.col("percent_min") - 0.5) & (pl.col("percent_printed") <= pl.col("percent_max") + 0.5))
        .alias("consistent")
    ).sort("requests_per_30s", "contention")


def paper_table1_wide(table: pl.DataFrame) -> pl.DataFrame:
    """The paper's layout: one row per request count, cells ``"ms (printed% / computed%)"``."""
    cells = table.with_columns(
        pl.format("{} ({}% | {}%)", pl.col("mean_ms").round(0).cast(pl.Int64), "percent_printed", "percent_rounded")
        .alias("cell"),
        (pl.col("contention") * 100).round(0).cast(pl.Int64).cast(pl.String).add("%").alias("stress"),
    )
    return cells.pivot(on="stress", index="requests_per_30s", values="cell").sort("requests_per_30s")


def published_increase(table: pl.DataFrame, requests_per_30s: int = 450, contention: float = 0.7) -> Estimate:
    """The paper's headline (+361% at 450 requests / 30 s and 70% stress) as an :class:`Estimate`.

    The interval is the range the rounding of the printed milliseconds allows (``percent_min`` /
    ``percent_max`` of :func:`paper_table1`); nothing in the paper measures run-to-run noise.
    """
    r = table.filter((pl.col("requests_per_30s") == requests_per_30s)
                     & ((pl.col("contention") - contention).abs() < 1e-9)).row(0, named=True)
    return Estimate(float(r["percent"]), float(r["percent_min"]), float(r["percent_max"]), 1.0,
                    "ratio of published means", None, None, "pct", ROUNDING_ONLY)
