"""Tables inside ``results.json``: a field marked ``Rows(RowClass)`` holds a frame whose columns a row class declares.

A row class is a frozen dataclass: its fields are the table's columns (types and
numpydoc ``Attributes``), so the JSON Schema's row schema and its documentation
are generated from it (:mod:`throttlelab.report.results_schema`) and :func:`table`
gives a frame exactly those columns.  :func:`row_class` builds one from column
groups that several tables share (e.g. the run-level test columns).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

#: One column: (name, Python type, description); a default of ``None`` (4th item) makes it optional.
Column = tuple


@dataclass(frozen=True)
class Rows:
    """Marks a table field: ``Annotated[Any, Rows(RowClass)]`` holds a polars frame written as a list of rows.

    ``RowClass`` is a dataclass whose fields are the table's columns (types and numpydoc ``Attributes``): the JSON
    Schema's row schema is generated from it and :func:`table` gives a frame exactly those columns.
    """

    row: type


def table(frame: Any, row: type) -> Any:
    """``frame`` with exactly the columns of the row class ``row``, in its field order.

    A missing column raises ``ValueError`` (the row class is the table's contract) unless its field has a default
    (an optional column, e.g. a metric only service runs record: added as nulls); so does an undocumented extra
    column, so a new column is added to the row class, not slipped into ``results.json``.  An empty frame without
    columns (nothing to show) is returned as it is.

    Examples
    --------
    >>> import polars as pl
    >>> @dataclass(frozen=True)
    ... class Row:
    ...     limit: str
    ...     runs: int
    >>> table(pl.DataFrame({"runs": [2], "limit": ["1000m"]}), Row).columns
    ['limit', 'runs']
    """
    if frame.width == 0:
        return frame
    import polars as pl

    fields = dataclasses.fields(row)
    names = [f.name for f in fields]
    optional = {f.name for f in fields if f.default is None}
    missing = [n for n in names if n not in frame.columns and n not in optional]
    extra = [c for c in frame.columns if c not in names]
    if missing or extra:
        raise ValueError(f"table {row.__name__}: missing columns {missing}, undocumented columns {extra}")
    absent = [pl.lit(None, pl.Float64).alias(n) for n in names if n not in frame.columns]
    return (frame.with_columns(absent) if absent else frame).select(names)


def row_class(name: str, summary: str, *groups: list[Column], module: str | None = None) -> type:
    """A frozen dataclass named ``name`` with one field per column of ``groups``, documented in numpydoc.

    A column is ``(name, type, description)``, or ``(name, type, description, None)`` for an optional column
    (filled with nulls by :func:`table` when absent).

    Examples
    --------
    >>> Row = row_class("Row", "A row.", [("limit", str, "the limit"), ("p90", float, "90th percentile", None)])
    >>> [f.name for f in dataclasses.fields(Row)], Row.__doc__.splitlines()[0]
    (['limit', 'p90'], 'A row.')
    """
    cols = [c for g in groups for c in g]
    doc = [summary, "", "Attributes", "----------"]
    for c in cols:
        doc += [c[0], f"    {c[2]}"]
    fields = [(c[0], c[1], dataclasses.field(default=None)) if len(c) > 3 else (c[0], c[1]) for c in cols]
    cls = dataclasses.make_dataclass(name, fields, frozen=True, kw_only=True)
    cls.__doc__ = "\n".join(doc)
    if module:
        cls.__module__ = module
    return cls
