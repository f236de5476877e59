"""Tables for people: a polars frame (or a mapping) shown as a formatted great_tables table.

Notebooks call :func:`show_table` instead of ending a cell with a frame: readable
column names with units, three significant digits, p-values to three decimals,
integers with thousands separators, ``–`` for missing values, every row (no
truncation), no dtype row, no ``shape:`` line, no quotes and no Python reprs.
Quantities are shown in the unit a reader expects, with :mod:`throttlelab.units`
(the formatters sentences and charts use too): latency in ms, memory in MiB or
GiB, shares as %, no scientific notation; a table with ``metric`` and ``unit``
columns shows its ``*_value`` columns with each row's unit.
An empty table is replaced by one sentence saying why it is empty.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping
from typing import Any

from throttlelab import units
from throttlelab.tables import RESPONSE_METRICS

#: Column-name endings and the unit they carry, longest first.
UNIT_SUFFIXES = (
    ("_core_seconds", "core-s"), ("_seconds", "s"), ("_ms", "ms"), ("_pct", "%"), ("_percent", "%"),
    ("_cores", "cores"), ("_mib", "MiB"), ("_bytes", "bytes"), ("_rps", "req/s"), ("_s", "s"),
)
#: Whole column names with a fixed label.
LABELS = {
    "ci_low": "95% CI low", "ci_high": "95% CI high", "p_value": "p", "p_adjusted": "adjusted p",
    "adjusted_p": "adjusted p", "p_holm": "Holm p", "aic": "AIC", "aicc": "AICc", "cv": "CV", "n": "n",
    "n_runs": "runs", "cpu_limit_cores": "CPU limit (cores)", "limit_label": "CPU limit", "limit": "CPU limit",
    "core_seconds": "core-seconds", "percent_change": "change (%)", "percent_printed": "printed (%)",
    "percent": "change (%)", "r2": "R²",
}
MISSING = units.MISSING


def readable_label(column: str) -> str:
    """A column name as a reader wants it: words, and the unit in brackets.

    >>> readable_label("geomean_seconds")
    'geomean (s)'
    >>> readable_label("slowdown_ci_low_pct")
    'slowdown CI low (%)'
    >>> readable_label("ci_high")
    '95% CI high'
    """
    if column in LABELS:
        return LABELS[column]
    unit = ""
    for suffix, u in UNIT_SUFFIXES:
        if column.endswith(suffix) and len(column) > len(suffix):
            column, unit = column[: -len(suffix)], u
            break
    words = column.replace("_", " ").strip()
    words = " ".join("CI" if w == "ci" else "CPU" if w == "cpu" else w for w in words.split())
    return f"{words} ({unit})" if unit else words


def format_number(x: Any, *, column: str = "") -> str:
    """One number as text: 3 significant digits (p-values: 3 decimals, %: 1 decimal), never scientific notation.

    >>> [format_number(v) for v in (70.49, 0.114146, 12345.6, 8.56e-16, None, float("inf"))]
    ['70.5', '0.114', '12,346', '< 0.001', '–', '∞']
    >>> format_number(0.0004, column="p_value"), format_number(34.21, column="slowdown_pct")
    ('< 0.001', '34.2')
    """
    if isinstance(x, numbers.Real) and not isinstance(x, (bool, int)) and math.isfinite(x):
        if _is_p(column):
            return units.p_value(float(x))
        if column.endswith(("_pct", "_percent")) or column.startswith("percent"):
            return f"{float(x):,.1f}"
    return units.number(x)


def format_value(v: Any, *, column: str = "") -> str:
    """Any cell value as text with no Python repr (paths, lists, mappings, dataclasses).

    >>> from pathlib import Path
    >>> format_value(Path("/data/x.csv")), format_value([1, 2.5]), format_value({"a": 1})
    ('/data/x.csv', '1, 2.50', 'a: 1')
    """
    import dataclasses
    import datetime as dt
    import os

    if v is None or isinstance(v, (int, float, bool)):
        return format_number(v, column=column)
    if isinstance(v, str):
        return v
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    if isinstance(v, Mapping):
        return "; ".join(f"{k}: {format_value(x)}" for k, x in v.items()) or MISSING
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return format_value({f.name: getattr(v, f.name) for f in dataclasses.fields(v)})
    if isinstance(v, (list, tuple, set, frozenset)):
        return ", ".join(format_value(x) for x in v) or MISSING
    if isinstance(v, (dt.date, dt.time, dt.timedelta)):
        return str(v)
    if hasattr(v, "to_list"):  # polars Series in a struct
        return format_value(v.to_list())
    return str(v)


def _prepared(df: Any, labels: Mapping[str, str] | None, columns: list[str] | None,
              quantities: Mapping[str, str] | None) -> tuple[Any, dict[str, str], list[str]]:
    """The frame as shown (selected columns, display units, empty columns dropped), its labels and what was dropped."""
    df = _frame(df)
    if columns is not None:
        df = df.select(columns)
    df, unit_labels = in_display_units(df, quantities)
    labels = {**unit_labels, **(labels or {})}
    df, dropped = _tidy(df, labels)
    return df, labels, dropped


def table_html(df: Any, *, title: str | None = None, labels: Mapping[str, str] | None = None,
               columns: list[str] | None = None, note: str | None = None,
               quantities: Mapping[str, str] | None = None) -> str:
    """The great_tables HTML of ``df`` (a polars frame or a mapping), formatted for people."""
    import polars as pl
    from great_tables import GT

    df, labels, dropped = _prepared(df, labels, columns, quantities)
    if dropped:
        note = (f"{note} " if note else "") + f"Left out, no value in any row: {', '.join(dropped)}."
    text_cols = [c for c, t in df.schema.items() if not (t.is_numeric() and not t.is_nested())]
    df = df.with_columns(
        pl.col(c).map_elements(lambda v, c=c: format_value(v, column=c), return_dtype=pl.String, skip_nulls=False)
        for c in text_cols
    ).with_columns(pl.col(text_cols).fill_null(MISSING))
    numeric = [c for c in df.columns if c not in text_cols]
    gt = GT(df)
    for c in numeric:
        gt = gt.fmt(lambda v, c=c: format_number(v, column=c), columns=c)
    names = {c: (labels or {}).get(c) or readable_label(c) for c in df.columns}
    gt = gt.cols_label(**names).opt_row_striping().tab_options(
        table_font_size="14px", column_labels_font_weight="bold", table_margin_left="0px")
    if title:
        gt = gt.tab_header(title=title)
    if note:
        gt = gt.tab_source_note(note)
    return f'<div class="tl-table">{gt.as_raw_html()}</div>'


def table_markdown(df: Any, *, labels: Mapping[str, str] | None = None, columns: list[str] | None = None,
                   quantities: Mapping[str, str] | None = None) -> str:
    """The same table as GitHub markdown (plain-text fallback for consoles and converters)."""
    df, labels, _ = _prepared(df, labels, columns, quantities)
    head = [(labels or {}).get(c) or readable_label(c) for c in df.columns]
    rows = [[format_value(v, column=c).replace("|", "\\|") for c, v in zip(df.columns, r)] for r in df.iter_rows()]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def show_table(df: Any, *, title: str | None = None, labels: Mapping[str, str] | None = None,
               columns: list[str] | None = None, note: str | None = None, empty: str | None = None,
               quantities: Mapping[str, str] | None = None) -> None:
    """Display ``df`` as a formatted table (or say why there is none).

    Parameters
    ----------
    df
        A polars DataFrame, or a mapping (shown as a two-column what/value table).
    title
        Shown above the table.
    labels
        Column labels overriding :func:`readable_label`.
    columns
        Only these columns, in this order (leave helper columns out).
    note
        A source note under the table (what the numbers rest on).
    empty
        Why the table can be empty; shown instead of an empty table.
    quantities
        Column -> quantity of :data:`throttlelab.units.QUANTITIES` (``share``, ``latency``...) for columns whose
        name does not say it (see :func:`column_quantity`).
    """
    from IPython.display import display

    frame = _frame(df)
    if frame.height == 0 or frame.width == 0:
        reason = empty or "no rows"
        text = f"{title}: {reason}." if title else f"No rows: {reason}."
        display({"text/markdown": f"*{text}*", "text/plain": text}, raw=True)
        return
    display({"text/html": table_html(frame, title=title, labels=labels, columns=columns, note=note,
                                     quantities=quantities),
             "text/markdown": table_markdown(frame, labels=labels, columns=columns, quantities=quantities),
             "text/plain": f"{title or 'table'}: {frame.height} rows"}, raw=True)


def _frame(df: Any):
    import polars as pl

    if isinstance(df, pl.DataFrame):
        return df
    if isinstance(df, Mapping):
        return pl.DataFrame({"what": [readable_label(str(k)) for k in df],
                             "value": [format_value(v, column=str(k)) for k, v in df.items()]},
                            schema={"what": pl.String, "value": pl.String})
    return pl.DataFrame(df)


def _is_p(column: str) -> bool:
    c = column.lower()
    return c in ("p", "p_value", "pvalue", "adjusted_p", "p_adjusted", "p_holm", "holm") or c.startswith("p_") \
        or c.endswith(("_p", "_p_value", "_pvalue"))


def column_quantity(column: str) -> str | None:
    """The quantity a column's name says it holds: ``latency`` (seconds), ``memory`` (bytes), ``share`` (0-1).

    >>> [column_quantity(c) for c in ("latency_p999_seconds", "best_latency_p50_seconds_ci_low", "max_memory_bytes",
    ...                               "throttled_ratio", "contention", "wall_seconds")]
    ['latency', 'latency', 'memory', 'share', 'share', None]
    """
    c = column.lower()
    if "latency" in c and "seconds" in c:
        return "latency"
    if c.endswith("_bytes") or "_bytes_" in c:
        return "memory"
    if c.endswith(("_share", "throttled_ratio")) or c == "contention":
        return "share"
    return None


def in_display_units(df: Any, quantities: Mapping[str, str] | None = None) -> tuple[Any, dict[str, str]]:
    """``df`` with latency in ms, memory in MiB/GiB, shares in %, and the labels that say so.

    A frame with ``metric`` and ``unit`` columns (one metric per row) shows its ``*_value`` columns as text in each
    row's unit (:func:`throttlelab.units.metric`), its metric names as words, and drops the ``unit`` column.
    """
    import polars as pl

    labels: dict[str, str] = {}
    for c, t in df.schema.items():
        q = (quantities or {}).get(c) or column_quantity(c)
        if q is None or not t.is_numeric():
            continue
        if q == "memory":
            q = units.memory_quantity(df[c].to_list())
        spec = units.QUANTITIES[q]
        df = df.with_columns(pl.col(c).cast(pl.Float64) * spec.scale)
        labels[c] = _with_unit(readable_label(c), spec.unit)
    if {"metric", "unit"} <= set(df.columns):
        rows = list(zip(df["metric"].to_list(), df["unit"].to_list()))
        for c in [c for c in df.columns if c.endswith("_value") and df.schema[c].is_numeric()]:
            df = df.with_columns(pl.Series(c, [units.metric(v, str(m), str(u)) if v is not None else None
                                               for v, (m, u) in zip(df[c].to_list(), rows)], dtype=pl.String))
        df = df.with_columns(pl.col("metric").map_elements(
            lambda m: RESPONSE_METRICS[m].label if m in RESPONSE_METRICS else m, return_dtype=pl.String)).drop("unit")
    return df, labels


def _with_unit(label: str, unit: str) -> str:
    """``latency p999 (s)`` -> ``latency p999 (ms)``; ``best latency p50 seconds CI low`` -> ``... CI low (ms)``."""
    label = re.sub(r"\s*\((s|bytes|MiB|GiB)\)$", "", label)
    label = re.sub(r"\bseconds\b\s*", "", label).strip()
    return f"{label} ({unit})"


def _tidy(df, labels: Mapping[str, str] | None = None):
    """Drop columns with no value in any row; whole-number float columns become integers."""
    import polars as pl

    dropped = [c for c in df.columns if df.height and df[c].null_count() == df.height]
    df = df.drop(dropped)
    whole = [c for c, t in df.schema.items() if t.is_float() and not _is_p(c) and df[c].null_count() < df.height
             and df[c].drop_nulls().is_finite().all() and (df[c].drop_nulls() % 1 == 0).all()]
    return df.with_columns(pl.col(whole).cast(pl.Int64)), [(labels or {}).get(c) or readable_label(c) for c in dropped]
