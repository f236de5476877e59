"""Analysis tables in the response metric's own units: costs back to values, cost changes to metric changes.

The analyses work on costs (:mod:`throttlelab.analysis.runs.response_metric`); these
views rename and convert their tables for reports: ``geomean_seconds`` becomes
``throughput_rps`` (``1 / cost``), ``slowdown_pct`` becomes
``throughput_rps_change_pct`` (``1 / (1 + c) - 1``), and the ends of every
interval are swapped when higher is better.  For ``wall_seconds`` the tables
are returned as they are.

Examples
--------
>>> import polars as pl
>>> from throttlelab.analysis.runs.response_metric import resolve
>>> t = pl.DataFrame({"limit": ["1000m"], "slowdown_pct": [25.0], "slowdown_ci_low_pct": [0.0],
...                   "slowdown_ci_high_pct": [100.0]})
>>> [round(v, 6) for v in dead_zone_view(t, resolve("throughput_rps")).row(0)[1:]]
[-20.0, -50.0, 0.0]
"""

from __future__ import annotations

import polars as pl

from throttlelab.analysis.runs.response_metric import ResponseMetric


def _value(col: str, m: ResponseMetric) -> pl.Expr:
    return (1.0 / pl.col(col)) if m.higher_is_better else pl.col(col)


def _change(col: str, m: ResponseMetric) -> pl.Expr:
    return (100.0 * (1.0 / (1.0 + pl.col(col) / 100.0) - 1.0)) if m.higher_is_better else pl.col(col)


def _convert(df: pl.DataFrame, m: ResponseMetric, values: dict[str, str], changes: dict[str, str],
             swap: list[tuple[str, str]]) -> pl.DataFrame:
    """Convert ``values`` (cost -> metric) and ``changes`` (cost % -> metric %), rename, swap interval ends."""
    if m.name == "wall_seconds":
        return df
    exprs = []
    for old, new in values.items():
        if old in df.columns:
            exprs.append(_value(old, m).alias(new))
    for old, new in changes.items():
        if old in df.columns:
            exprs.append(_change(old, m).alias(new))
    renamed = {**values, **changes}
    out = df.with_columns(exprs).drop([c for c in renamed if c in df.columns and c != renamed[c]])
    if m.higher_is_better:
        pairs = [(renamed.get(a, a), renamed.get(b, b)) for a, b in swap]
        pairs = [(a, b) for a, b in pairs if a in out.columns and b in out.columns]
        out = out.with_columns([pl.col(b).alias(a) for a, b in pairs] + [pl.col(a).alias(b) for a, b in pairs])
    order = [renamed.get(c, c) for c in df.columns]
    return out.select([c for c in order if c in out.columns])


def limits_view(summary: pl.DataFrame, m: ResponseMetric) -> pl.DataFrame:
    """:func:`~throttlelab.analysis.runs.prepare.limit_summary` in the metric's units (best/worst run instead of min/max)."""
    n = m.name
    out = _convert(summary, m, {"geomean_seconds": f"geomean_{n}", "median_seconds": f"median_{n}",
                                "min_seconds": f"best_{n}", "max_seconds": f"worst_{n}"}, {},
                   [("min_seconds", "max_seconds")])
    if m.name != "wall_seconds" and "reserved_core_seconds" in out.columns:
        out = out.drop("reserved_core_seconds")  # limit x cost is core-seconds only for a run's wall time
    return out


def dead_zone_view(table: pl.DataFrame, m: ResponseMetric) -> pl.DataFrame:
    """A dead-zone limits table with ``<metric>_change_pct`` (and interval) instead of ``slowdown_pct``."""
    n = m.name
    return _convert(table, m, {}, {"slowdown_pct": f"{n}_change_pct", "slowdown_ci_low_pct": f"{n}_change_ci_low_pct",
                                   "slowdown_ci_high_pct": f"{n}_change_ci_high_pct"},
                    [("slowdown_ci_low_pct", "slowdown_ci_high_pct")])


def best_threads_view(table: pl.DataFrame, m: ResponseMetric) -> pl.DataFrame:
    """:meth:`ThreadCountAnalysis.table` in the metric's units."""
    n = m.name
    return _convert(
        table, m,
        {"best_seconds": f"best_{n}", "best_seconds_ci_low": f"best_{n}_ci_low", "best_seconds_ci_high": f"best_{n}_ci_high",
         "auto_seconds": f"auto_{n}"},
        {"auto_vs_best_pct": f"auto_vs_best_{n}_pct", "auto_vs_best_ci_low_pct": f"auto_vs_best_{n}_ci_low_pct",
         "auto_vs_best_ci_high_pct": f"auto_vs_best_{n}_ci_high_pct"},
        [("best_seconds_ci_low", "best_seconds_ci_high"), ("auto_vs_best_ci_low_pct", "auto_vs_best_ci_high_pct")])


def recommendations_view(table: pl.DataFrame, m: ResponseMetric) -> pl.DataFrame:
    """:meth:`ThreadCountAnalysis.recommendations` in the metric's units (core-seconds only for wall time)."""
    n = m.name
    out = _convert(table, m, {"expected_seconds": f"expected_{n}", "expected_seconds_ci_low": f"expected_{n}_ci_low",
                              "expected_seconds_ci_high": f"expected_{n}_ci_high"}, {},
                   [("expected_seconds_ci_low", "expected_seconds_ci_high")])
    if m.name != "wall_seconds" and "core_seconds" in out.columns:
        out = out.drop("core_seconds")
    return out


def cells_view(cells: pl.DataFrame, m: ResponseMetric) -> pl.DataFrame:
    """Heatmap cells with ``value`` = the cell's geometric mean in the metric's units."""
    return cells.with_columns(_value("geomean_seconds", m).alias("value"))
