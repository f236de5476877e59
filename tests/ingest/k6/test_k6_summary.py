"""Tests of throttlelab.ingest.k6.k6_summary: a k6 end-of-test summary as a frame of metric statistics."""

from __future__ import annotations

import pytest

from throttlelab.errors import InputError
from throttlelab.ingest.k6.k6_summary import read_k6_summary


def test_summary(fixtures):
    r = read_k6_summary(fixtures / "k6_summary.json")
    df = r.frame
    p95 = df.filter((df["metric"] == "http_req_duration") & (df["stat"] == "p(95)"))["value"]
    assert p95.to_list() == [2500.5]
    assert r.unit == "values" and r.skipped.counts == {"non-numeric statistic": 1}
    assert r.lines_used + r.skipped.total == r.lines_total


def test_summary_bad_json(tmp_path):
    p = tmp_path / "s.json"
    p.write_text('{"metrics": {\n  "x": [1,\n}')
    with pytest.raises(InputError, match=r"s.json:3: invalid JSON"):
        read_k6_summary(p)
