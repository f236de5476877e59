"""Tests of throttlelab.report.recommend.recommend_table on the bundled sample: fits the width, one unit per column, ``keep``
without a new number, first rounds marked, colours only on a terminal without NO_COLOR."""

from __future__ import annotations

import doctest
import io
import re
from pathlib import Path

import pytest

import throttlelab.report.recommend.recommend_table as mod
from throttlelab.analysis.rightsizing import EXTRAPOLATED_NOTE, decision_table
from tests.analysis.rightsizing.read_and_rightsize import rightsize_request
from throttlelab.report.recommend_cli import table_parts
from throttlelab.report.recommend.recommend_table import console, print_table, table_text

SAMPLE = Path(__file__).resolve().parents[3] / "data" / "published" / "samples" / "shop_namespace.om.gz"
CORES = re.compile(r"^(\d+m\*?|none|keep|\?)$")
ANSI_COLOUR = re.compile(r"\x1b\[[0-9;]*3[0-7]m|\x1b\[[0-9;]*38;")


@pytest.fixture(scope="module")
def run():
    return rightsize_request(openmetrics_path=str(SAMPLE), read_directly=True)


def test_doctests_run():
    res = doctest.testmod(mod)
    assert res.attempted >= 1 and res.failed == 0


def test_every_cpu_column_has_one_unit_and_keep_has_no_new_number(run):
    t = decision_table(run.recommendations)
    for col in ("request now", "request new", "limit now", "limit new", "usage p95"):
        assert all(CORES.match(v) for v in t[col].to_list()), (col, t[col].to_list())
    assert not any("->" in str(v) for row in t.iter_rows() for v in row)
    keep = t.filter(t["decision"] == "keep")
    assert keep.height == 2 and set(keep["request new"]) == {"keep"} and set(keep["limit new"]) == {"keep"}
    assert set(keep["limit 90% interval"]) == {""}


def test_a_first_round_raise_is_marked_and_explained(run):
    starved = next(r for r in run.recommendations if r.workload == "starved")
    assert starved.demand_censored and starved.recommended_limit_cores >= 4 * starved.current_limit_cores
    t = decision_table(run.recommendations)
    row = t.filter(t["workload"] == "StatefulSet/starved").row(0, named=True)
    assert row["limit new"] == "2000m*" and row["request new"].endswith("*") and row["limit 90% interval"] == "510-2000m"
    others = t.filter(t["workload"] != "StatefulSet/starved")
    assert not any("*" in v for v in others["limit new"].to_list() + others["request new"].to_list())
    text = table_text(*table_parts(run)[:2], header="h", footnote=EXTRAPOLATED_NOTE, width=120)
    assert "* a first round: throttled in most periods" in text


@pytest.mark.parametrize("width", [80, 100, 140, 220])
def test_the_table_fits_the_width_and_shows_more_columns_when_wider(run, width):
    table, reasons, header, note = table_parts(run)
    text = table_text(table, reasons, header=header, footnote=note, width=width)
    body = text.split("\n\n", 1)[1].split("\nWhy:")[0]  # the table and its footnote (the header lines are not wrapped)
    assert max(len(line) for line in body.splitlines()) <= width
    heads = body.splitlines()[0] + body.splitlines()[1]
    assert ("interval" in heads) == (width >= 140) and ("VPA-style" in heads) == (width >= 220)
    assert all(f"{r.workload}" in text for r in run.recommendations) and "Why:" in text


def _coloured(run, **env) -> str:
    table, reasons, header, note = table_parts(run)
    buf = io.StringIO()
    print_table(table, reasons, header=header, footnote=note, file=buf, width=120, color=True)
    return buf.getvalue()


def test_colours_on_a_terminal_none_without_one_or_with_no_color(run, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    text = _coloured(run)
    assert "\x1b[1;31mraise limit" in text and "\x1b[32mlower limit" in text and "\x1b[36mkeep" in text
    assert "\x1b[32m300m" in text  # the oversized request, lowered
    monkeypatch.setenv("NO_COLOR", "1")
    assert not ANSI_COLOUR.search(_coloured(run))
    monkeypatch.delenv("NO_COLOR")
    buf = io.StringIO()  # not a terminal, colour left to the output
    table, reasons, header, note = table_parts(run)
    print_table(table, reasons, header=header, footnote=note, file=buf)
    assert "\x1b" not in buf.getvalue()
    assert console(file=io.StringIO()).is_terminal is False


def test_direction_reads_a_request_of_zero():
    assert [mod.direction(a, b) for a, b in [("0m", "50m"), ("250m", "0m"), ("0m", "0m*"), ("1", "999m")]] == [
        "raise", "lower", "keep", "lower"]


def test_direction():
    assert [mod.direction(a, b) for a, b in [("500m", "2000m*"), ("4000m", "600m"), ("1000m", "keep"),
                                              ("none", "860m"), ("500m", "?"), ("500m", "500m")]] == [
        "raise", "lower", "keep", "other", "none", "keep"]
