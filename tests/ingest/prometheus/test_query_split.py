"""Range queries split by namespace and time: under the points budget, and joined to the rows of one query."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import CLUSTER_HOURS
from throttlelab.ingest.prometheus import query_split
from throttlelab.ingest.prometheus.container_cpu import fetch_containers
from throttlelab.ingest.prometheus.prometheus_api import MAX_POINTS, PrometheusAPI
from throttlelab.ingest.prometheus.query_split import namespace_matcher, query_groups


def test_groups_keep_series_times_steps_under_the_budget():
    counts = {f"ns-{i:03d}": 3 + i % 7 for i in range(200)}
    groups = query_groups(counts, 2000, budget=50_000)
    assert [n for g, _ in groups for n in g] == sorted(counts)  # every namespace once, in name order
    assert len(groups) > 1
    for nss, pts in groups:
        assert sum(counts[n] for n in nss) * pts <= 50_000 and pts == 2000  # whole window: the groups fit it
    big = query_groups({"a": 1, "huge": 400}, 2000, budget=50_000)
    assert big == [(("a",), 2000), (("huge",), 125)]  # alone over the budget: the window in pieces of 125 steps
    assert query_groups({"a": 1}, 50_000) == [(("a",), MAX_POINTS)]  # never above the server's per-series limit


def test_namespace_matcher():
    assert namespace_matcher(("shop",)) == 'namespace="shop"'
    assert namespace_matcher(("a", "b-1")) == 'namespace=~"a|b-1"'


@pytest.mark.prometheus
def test_many_namespaces_and_a_long_window_give_several_queries_that_join_to_one_querys_rows(
        prometheus_cluster, monkeypatch):
    url, _, end = prometheus_cluster
    api = PrometheusAPI(url)
    kw = dict(window_s=CLUSTER_HOURS * 3600, end=end, step_s=300)
    one = fetch_containers(api, **kw)
    monkeypatch.setattr(query_split, "QUERY_POINTS", 3000)
    many = fetch_containers(api, **kw)
    usage = [q for q in many.promql if "rate(container_cpu_usage_seconds_total" in q]
    assert sum('namespace="shop"' in q for q in usage) and sum('namespace="ops"' in q for q in usage)
    whole = [q for q in one.promql if "rate(container_cpu_usage_seconds_total" in q and "[5m]" in q]
    # the default budget: one query for the cluster (cAdvisor's series with an id, and the copies without one)
    assert len(whole) == 2 and not any("namespace=" in q for q in whole) and 'id!=""' in whole[0]
    assert many.queries >= one.queries + 2 * 4 * 5  # two namespaces, four counters, the window in several pieces
    a = {c.key: c for c in one.containers}
    b = {c.key: c for c in many.containers}
    assert sorted(a) == sorted(b) and len(a) == 56
    for k, c in a.items():
        for name in ("times", "usage", "throttled_seconds", "periods", "throttled_periods"):
            np.testing.assert_array_equal(getattr(c, name), getattr(b[k], name), err_msg=f"{k} {name}")
        assert (c.limit_cores, c.request_cores, c.step_s) == (b[k].limit_cores, b[k].request_cores, b[k].step_s)
