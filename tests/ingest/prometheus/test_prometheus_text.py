"""The Prometheus text exposition format: sample lines, label escapes, detection."""

from __future__ import annotations

from throttlelab.ingest.skip_counter import SkipCounter
import pytest
from throttlelab.ingest.prometheus.prometheus_text import looks_like_exposition, parse_value, read_text_points


def test_sample_lines_and_escapes(tmp_path):
    p = tmp_path / "m.prom"
    p.write_text('# TYPE x counter\nx{a="q\\"uote",b="back\\\\slash",c="new\\nline"} 1.5e+03 1700000000000\n'
                 'x 2\nx{a="1"} NaN\nx{a=1} 3\n\n')
    skips = SkipCounter(str(p))
    tp = read_text_points(p, skips)
    assert tp.types == {"x": "counter"}
    assert tp.points == [(2, "x", {"a": 'q"uote', "b": "back\\slash", "c": "new\nline"}, 1700000000000, 1500.0),
                         (3, "x", {}, None, 2.0)]
    assert skips.report().counts == {"bad value": 1, "not a Prometheus sample line (name{labels} value [timestamp])": 1}
    assert tp.lines_total == 6


def test_detection():
    assert looks_like_exposition("# HELP up Up.\n# TYPE up gauge\nup 1\n")
    assert looks_like_exposition('container_cpu_usage_seconds_total{pod="p"} 1 2\n')
    assert not looks_like_exposition("usage_usec 123\nnr_periods 4\n")  # a bare cpu.stat snapshot
    assert not looks_like_exposition("hello world\n")


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
