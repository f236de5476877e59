"""The client's sum by container, ``or on`` and ratio of raw range series equal Prometheus' own PromQL."""

from __future__ import annotations

import numpy as np
import pytest

from throttlelab.ingest.prometheus.prometheus_answers import Series
from throttlelab.ingest.prometheus.prometheus_api import PrometheusAPI
from throttlelab.ingest.prometheus.prometheus_local import LocalPrometheus, prometheus_available, run_promtool
from throttlelab.ingest.prometheus.series_sum import first_present, ratio, sum_by_key

START = 1_767_225_600.0
BY = "namespace, pod, container"


def _om(path):
    """Container ``a``: a cgroup that restarts mid-window (a second ``id``) and the /metrics/resource copy (no
    ``id``) for the first half only; ``b``: only the copy; ``c``: one series with periods, throttled in some.
    15-s scrapes, 2 h."""
    rows = []
    for lab, rate, lo, hi in (('container="a",pod="p",id="/a1"', 0.5, 1, 300),
                              ('container="a",pod="p",id="/a2"', 0.7, 290, 480),
                              ('container="a",pod="p"', 0.45, 1, 240),
                              ('container="b",pod="q"', 0.25, 1, 480),
                              ('container="c",pod="r",id="/c"', 0.1, 1, 480)):
        rows += [f'container_cpu_usage_seconds_total{{namespace="t",{lab}}} {rate * 15 * (i - lo + 1):.3f} '
                 f'{START + 15 * i:.0f}' for i in range(lo, hi + 1)]
    lines = ["# TYPE container_cpu_usage_seconds_total counter", *sorted(rows, key=lambda r: (r.split("}")[0], float(r.split()[-1])))]
    for name, every in (("container_cpu_cfs_periods_total", 1), ("container_cpu_cfs_throttled_periods_total", 3)):
        lines.append(f"# TYPE {name} counter")
        lines += [f'{name}{{namespace="t",container="c",pod="r",id="/c"}} {150 * (i // every) if i < 240 else 150 * (240 // every):.0f} '
                  f'{START + 15 * i:.0f}' for i in range(1, 481)]
    path.write_text("\n".join(lines) + "\n# EOF\n")
    return path


def _summed(api, q, step):
    return {tuple(s.labels.get(k, "") for k in ("namespace", "pod", "container")): (s.times, s.values)
            for s in api.query_range(q, START + step, START + 7200, step)}


def _equal(ours, theirs):
    assert sorted(ours) == sorted(theirs)
    for k in theirs:
        np.testing.assert_array_equal(ours[k][0], theirs[k][0], err_msg=str(k))
        np.testing.assert_allclose(ours[k][1], theirs[k][1], rtol=1e-12, err_msg=str(k))


@pytest.mark.prometheus
def test_client_joins_equal_the_servers_promql(tmp_path):
    ok, why = prometheus_available()
    if not ok:
        pytest.skip(why)
    run_promtool(_om(tmp_path / "t.om"), tmp_path / "tsdb")
    step = 60.0
    with LocalPrometheus(tmp_path / "tsdb") as prom:
        api = PrometheusAPI(prom.url)
        raw = {part: api.query_range(f"rate(container_cpu_usage_seconds_total{{namespace=\"t\"{part}}}[2m])",
                                     START + step, START + 7200, step) for part in (',id!=""', ',id=""')}
        server = _summed(api, f'sum by ({BY}) (rate(container_cpu_usage_seconds_total{{namespace="t",id!=""}}[2m]) '
                              f'or on ({BY}) rate(container_cpu_usage_seconds_total{{namespace="t",id=""}}[2m]))', step)
        with_id = sum_by_key(raw[',id!=""'], START + step, step)
        assert len(raw[',id!=""']) == 3 and len(with_id) == 2  # the restart's two cgroups are one container
        _equal(first_present(with_id, sum_by_key(raw[',id=""'], START + step, step), START + step, step), server)
        assert server[("t", "q", "b")][1].mean() == pytest.approx(0.25, rel=0.01)  # only the copy: it counts

        five = {n: sum_by_key(api.query_range(f"rate({n}[5m])", START + 300, START + 7200, 300), START + 300, 300)
                for n in ("container_cpu_cfs_throttled_periods_total", "container_cpu_cfs_periods_total")}
        server5 = _summed(api, f"sum by ({BY}) (rate(container_cpu_cfs_throttled_periods_total[5m])) / "
                               f"sum by ({BY}) (rate(container_cpu_cfs_periods_total[5m]) > 0)", 300)
        ours5 = ratio(five["container_cpu_cfs_throttled_periods_total"], five["container_cpu_cfs_periods_total"],
                      START + 300, 300)
        _equal(ours5, server5)
        assert 0 < len(server5[("t", "r", "c")][0]) < 24  # periods stop half way: the ratio has no point there


def test_sum_by_key_adds_only_the_series_present_at_each_step():
    s = [Series({"namespace": "n", "pod": "p", "container": "c", "id": i}, np.array(t), np.array(v))
         for i, t, v in (("1", [60.0, 120.0], [1.0, 2.0]), ("2", [180.0], [5.0]), ("3", [120.0, 180.0], [0.5, 0.25]))]
    t, v = sum_by_key(s, 60.0, 60.0)[("n", "p", "c")]
    assert t.tolist() == [60.0, 120.0, 180.0] and v.tolist() == [1.0, 2.5, 5.25]
