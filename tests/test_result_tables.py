"""Row classes: table() keeps exactly their columns, row_class() builds documented ones, the schema types them."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

import polars as pl
import pytest

from throttlelab.result_tables import Rows, row_class, table
from throttlelab.report.results_schema import field_docs, json_schema

Row = row_class("Row", "A row of a test table.", [("limit", str, "The limit's label."), ("runs", int, "Runs.")],
                [("p90", float, "The p90 (optional).", None)])


@dataclasses.dataclass(frozen=True)
class Holder:
    """A result holding a table.

    Attributes
    ----------
    rows
        The table.
    """

    rows: Annotated[Any, Rows(Row)]


def test_table_orders_columns_and_fills_optional_ones():
    t = table(pl.DataFrame({"runs": [2], "limit": ["1000m"]}), Row)
    assert t.columns == ["limit", "runs", "p90"] and t["p90"].to_list() == [None]
    assert table(pl.DataFrame(), Row).width == 0  # nothing to show stays empty


def test_table_refuses_missing_and_undocumented_columns():
    with pytest.raises(ValueError, match="missing columns \\['runs'\\]"):
        table(pl.DataFrame({"limit": ["1000m"]}), Row)
    with pytest.raises(ValueError, match="undocumented columns \\['extra'\\]"):
        table(pl.DataFrame({"limit": ["1000m"], "runs": [1], "extra": [0]}), Row)


def test_row_classes_become_typed_documented_row_schemas():
    defs = json_schema([Holder])["$defs"]
    assert defs["Holder"]["properties"]["rows"]["type"] == "array"
    assert defs["Holder"]["properties"]["rows"]["items"] == {"$ref": "#/$defs/Row"}
    row = defs["Row"]
    assert row["properties"]["runs"]["type"] == "integer" and row["properties"]["limit"]["type"] == "string"
    assert row["properties"]["p90"]["description"] == "The p90 (optional)." and row["additionalProperties"] is False
    assert field_docs(Row)["limit"] == "The limit's label."
