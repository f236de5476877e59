"""The API's answers decoded: a range answer's points parsed exactly, and bad points as one line."""

from __future__ import annotations

import numpy as np
import pytest

from throttlelab.ingest.prometheus.prometheus_answers import PrometheusError, matrix_points


def test_range_values_parse_exactly_and_bad_points_are_one_line():
    # every float as Python's own parser reads it (correctly rounded), whitespace of a pretty-printing server ignored
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.lognormal(-3, 3, 2000), [0.0, 1e-300, 5e-324, 1.7976931348623157e308]])
    raw = "[" + ",".join(f'[{1767225600 + 30 * i}.5,"{v!r}"]' for i, v in enumerate(values.tolist())) + "]"
    pretty = b'[ [1, "NaN"],\n [2, "+Inf"], [3, "-Inf"] ]'
    (t, v), (t0, v0), (t2, v2) = matrix_points([raw.encode(), b"[]", pretty])
    assert np.array_equal(v, values) and np.array_equal(t, 1767225600.5 + 30 * np.arange(len(values)))
    assert len(t0) == len(v0) == 0 and t2.tolist() == [1, 2, 3] and np.isnan(v2[0]) and v2[1:].tolist() == [np.inf, -np.inf]
    v[0] = 1.0  # writable: callers fill and reuse them
    for bad in [b'[[1,"x"]]', b'[[1,"2",3]]', b'[[1]]', b'{"a": 1}', b'[[1,""]]']:
        with pytest.raises(PrometheusError, match="^range answer: .*time, \"value\"") as e:
            matrix_points([b'[[1,"2"]]', bad])
        assert "\n" not in str(e.value)
