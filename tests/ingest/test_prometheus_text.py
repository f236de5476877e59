"""The Prometheus text exposition format: sample lines, label escapes, detection."""

from __future__ import annotations

from throttlelab.ingest.prometheus_text import looks_like_exposition, read_text_points
from throttlelab.ingest.skip_counter import SkipCounter


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
