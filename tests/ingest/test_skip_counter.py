"""Tests of throttlelab.ingest.skip_counter: skipped lines counted per reason with examples."""

from __future__ import annotations

from throttlelab.ingest.result import EXAMPLES_PER_REASON
from throttlelab.ingest.skip_counter import SkipCounter


def test_counts_examples_and_first_problem():
    skips = SkipCounter("a.log")
    for n in range(10, 20):
        skips.add(n, "bad number", f"x{n}")
    skips.add(4, "unknown key", "zzz")
    report = skips.report()
    assert report.counts == {"bad number": 10, "unknown key": 1}
    assert report.total == 11
    assert len(report.examples["bad number"]) == EXAMPLES_PER_REASON
    assert [s.line for s in report.examples["bad number"]] == [10, 11, 12]
    assert str(report.first) == "a.log:4: unknown key: 'zzz'"


def test_merge_adds_counts_and_examples():
    a, b = SkipCounter("a.log"), SkipCounter("b.log")
    a.add(1, "bad number", "x")
    b.add(2, "bad number", "y")
    b.add(3, "empty", None)
    a.merge(b)
    assert a.counts == {"bad number": 2, "empty": 1}
    assert [s.path for s in a.examples["bad number"]] == ["a.log", "b.log"]
    assert a.first.path == "a.log"
