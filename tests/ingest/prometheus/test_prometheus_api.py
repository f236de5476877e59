"""The Prometheus client against a real server (the Debian prometheus): 4xx, range splits, other shapes, durations."""

from __future__ import annotations

import numpy as np
import pytest

from throttlelab.ingest.prometheus.prometheus_answers import PrometheusError
from throttlelab.ingest.prometheus.prometheus_api import PrometheusAPI, format_duration, parse_duration


@pytest.mark.prometheus
def test_real_prometheus_4xx_and_range_split(prometheus_scenarios):
    url, _, end = prometheus_scenarios
    api = PrometheusAPI(url)
    with pytest.raises(PrometheusError, match="HTTP 400.*bad_data"):
        api.query("sum(")
    with pytest.raises(PrometheusError, match="HTTP 404"):
        PrometheusAPI(url + "/no/such/prefix").query("up")
    # 3 days at 15 s = 17,280 steps: more than 11,000, so two requests, joined without a gap or a duplicate
    q0 = api.queries
    series = api.query_range('sum(rate(container_cpu_usage_seconds_total{pod="wellsized-0"}[1m]))', end - 72 * 3600 + 60,
                             end, 15)
    assert api.queries - q0 == 2
    t = series[0].times
    assert len(t) == len(set(t)) and (t[1:] - t[:-1] == 15).all()
    # the series API: the label sets of the series with samples in the window, as the instant query over it counts
    q = 'container_cpu_usage_seconds_total{container!="",container!="POD"}'
    found = api.series(q, end - 3600, end)
    counted = api.query_values(f"count by (namespace, pod, container) (last_over_time({q}[1h]))", time=end)
    keys = [tuple(s[k] for k in ("namespace", "pod", "container")) for s in found]
    assert found and {k: keys.count(k) for k in keys} == {k: int(v) for k, v in counted.items()}
    assert api.series_keys(q, end - 3600, end, ("namespace", "pod", "container")) == {k: keys.count(k) for k in keys}
    assert api.series(q, end + 86400, end + 2 * 86400) == []
    with pytest.raises(PrometheusError, match="HTTP 400.*bad_data") as e:
        api.series("sum(x)", end - 3600, end)
    assert "\n" not in str(e.value)


@pytest.mark.prometheus
def test_real_prometheus_other_shapes_and_special_values(prometheus_scenarios):
    url, _, end = prometheus_scenarios
    api = PrometheusAPI(url)
    # a scalar answer is not a vector: one clear line, not a decoding traceback
    with pytest.raises(PrometheusError, match="expected an instant vector for 'scalar\\(vector\\(1\\)\\)', got scalar"):
        api.query("scalar(vector(1))")
    with pytest.raises(PrometheusError, match="HTTP 400: bad_data: invalid expression type \"string\""):
        api.query_range('"x"', end - 600, end, 60)
    # NaN and infinities arrive as strings and come out as floats
    (series,) = api.query_range("vector(0) / vector(0)", end - 120, end, 60)
    assert len(series.values) == 3 and np.isnan(series.values).all()
    (inf,) = api.query("vector(1) / vector(0)")
    assert inf["value"][1] == "+Inf"
    assert api.query_values("vector(-1) / vector(0)", keys=())[()] == float("-inf")


def test_durations():
    assert parse_duration("14d") == 14 * 86400 and parse_duration("1h30m") == 5400
    assert format_duration(120) == "2m" and format_duration(86400 * 3) == "3d"
    with pytest.raises(Exception, match="not a duration"):
        parse_duration("two weeks")
