"""Tests of throttlelab.ingest.result: skip reports and ingest results add up."""

from __future__ import annotations

import polars as pl
import pytest

from throttlelab.ingest.result import EXAMPLES_PER_REASON, EXCERPT_CHARS, IngestResult, Skip, SkipReport, excerpt


def test_excerpt_is_short_and_printable():
    assert excerpt(None) == ""
    assert excerpt("a\tb") == "'a\\tb'"
    long = excerpt("x" * 500)
    assert long.startswith("'" + "x" * EXCERPT_CHARS) and long.endswith("... (500 chars)'")


def report(path, counts):
    ex = {r: tuple(Skip(path, i + 1, r, f"'l{i}'") for i in range(min(n, EXAMPLES_PER_REASON))) for r, n in counts.items()}
    first = min((s for v in ex.values() for s in v), key=lambda s: s.line, default=None)
    return SkipReport(counts, ex, first)


def test_skip_report_merge_summary_and_frame():
    a = report("a.log", {"bad number": 2})
    b = report("b.log", {"bad number": 5, "unknown key": 1})
    m = a.merge(b)
    assert m.counts == {"bad number": 7, "unknown key": 1} and m.total == 8
    assert len(m.examples["bad number"]) == EXAMPLES_PER_REASON
    assert m.first.path == "a.log" and bool(m)
    assert m.summary().splitlines()[0] == "          7 lines: bad number"
    assert "      e.g. a.log:1: bad number: 'l0'" in m.summary()
    assert m.to_frame().rows() == [("bad number", 7, "a.log:1: bad number: 'l0'"),
                                   ("unknown key", 1, "b.log:1: unknown key: 'l0'")]
    assert SkipReport().summary() == "nothing skipped" and not SkipReport()
    assert SkipReport().to_frame().height == 0


def test_ingest_results_merge_and_count():
    a = IngestResult("timings", pl.DataFrame({"x": [1.0]}), report("a.txt", {"bad": 1}), 3, 2, ("a.txt",))
    b = IngestResult("timings", pl.DataFrame({"x": [2.0, 3.0]}), SkipReport(), 2, 2, ("b.txt",), unit="values")
    m = a.merge(b)
    assert m.frame["x"].to_list() == [1.0, 2.0, 3.0]
    assert (m.lines_total, m.lines_used, m.skipped.total) == (5, 4, 1)
    assert m.lines_used + m.skipped.total == m.lines_total
    assert m.sources == ("a.txt", "b.txt") and m.unit == "items"
    d = m.to_dict()
    assert d["rows"] == 3 and d["lines_skipped"] == 1 and d["skipped"] == {"bad": 1}
    assert m.samples.height == 0 and "usage_seconds" in m.samples.columns  # not a samples result
    assert m.intervals().height == 0
    with pytest.raises(ValueError, match="cannot merge timings with samples"):
        a.merge(IngestResult("samples", pl.DataFrame(), SkipReport(), 0, 0))
