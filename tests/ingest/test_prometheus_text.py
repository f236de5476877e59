"""Tests of throttlelab.ingest.prometheus_text: the text exposition format read line by line."""

from __future__ import annotations

import pytest

from throttlelab.ingest.prometheus_text import looks_like_exposition, parse_value, read_text_points
from throttlelab.ingest.skip_counter import SkipCounter

TEXT = """# HELP container_cpu_usage_seconds_total Cumulative cpu time consumed
# TYPE container_cpu_usage_seconds_total counter
container_cpu_usage_seconds_total{namespace="shop",pod="web-1",container="app"} 1234.5 1767225600000
container_cpu_cfs_throttled_periods_total{pod="web-1",note="a \\"quoted\\" \\\\ value"} 17

container_cpu_cfs_periods_total{pod="web-1",} 40
broken line without value
container_cpu_usage_seconds_total{pod="web-2"} NaN
up 1
"""


def test_points_types_and_skips(tmp_path):
    p = tmp_path / "metrics.txt"
    p.write_text(TEXT)
    skips = SkipCounter(str(p))
    out = read_text_points(p, skips)
    assert out.lines_total == 9
    assert out.types == {"container_cpu_usage_seconds_total": "counter"}
    assert [(n, name, ts, v) for n, name, _, ts, v in out.points] == [
        (3, "container_cpu_usage_seconds_total", 1767225600000, 1234.5),
        (4, "container_cpu_cfs_throttled_periods_total", None, 17.0),
        (6, "container_cpu_cfs_periods_total", None, 40.0),
        (9, "up", None, 1.0),
    ]
    assert out.points[0][2] == {"namespace": "shop", "pod": "web-1", "container": "app"}
    assert out.points[1][2]["note"] == 'a "quoted" \\ value'
    assert skips.counts == {"not a Prometheus sample line (name{labels} value [timestamp])": 1, "bad value": 1}
    assert skips.first.line == 7


def test_parse_value_refuses_non_finite():
    assert parse_value("1e3") == 1000.0
    for bad in ("NaN", "+Inf", "-Inf", "x"):
        with pytest.raises(ValueError):
            parse_value(bad)


def test_looks_like_exposition():
    assert looks_like_exposition(TEXT)
    assert looks_like_exposition('a{b="c"} 1\n')
    assert not looks_like_exposition("usage_usec 100\nnr_periods 3\n")  # bare cpu.stat: no labels, no TYPE
    assert not looks_like_exposition("")
