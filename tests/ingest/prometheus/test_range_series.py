"""Counters' rate series by container: Job pods read at a minute over the lives found, as over the whole window."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import CLUSTER_HOURS
from throttlelab.ingest.prometheus.prometheus_api import PrometheusAPI
from throttlelab.ingest.prometheus.prometheus_owners import JOB_STEP_S, read_owners, short_lived_pods
from throttlelab.ingest.prometheus.range_series import COUNTERS, job_pod_series, other_pods, range_series

M = 'container!="",container!="POD"'


def test_other_pods_name_each_groups_pods_but_the_job_pods():
    every = {("a", "web-1", "app"), ("a", "job-1", "run"), ("b", "db-0", "db"), ("b", "job-2", "run")}
    brief = {("a", "job-1"), ("b", "job-2")}
    assert other_pods([(("a",), 10), (("b",), 10)], every, brief) == {("a",): ',pod=~"web-1"', ("b",): ',pod=~"db-0"'}
    assert other_pods([(None, 10)], every, brief) == {None: ',pod=~"db-0|web-1"'}
    assert other_pods([(None, 10)], every, set()) == {}  # no Job pods: no pod matcher


@pytest.mark.prometheus
def test_job_pods_over_the_lives_found_give_what_the_whole_window_gives(prometheus_cluster):
    url, _, end = prometheus_cluster
    api = PrometheusAPI(url)
    window = CLUSTER_HOURS * 3600
    start = end - window
    owners = read_owners(api, namespace=None, window=f"{CLUSTER_HOURS}h", end=end, promql=[])
    pods = {(k[0], k[1]) for k in api.query_values(f"count by (namespace, pod) (last_over_time("
                                                   f"{COUNTERS['usage']}{{{M}}}[{CLUSTER_HOURS}h]))", time=end,
                                                   keys=("namespace", "pod"))}
    brief = short_lived_pods(pods, owners)
    assert len(brief) >= 30  # the CronJob's runs and the one-off Job
    promql: list[str] = []
    got = job_pod_series(api, M, brief, start, end, 30.0, promql)
    lives = [q for q in promql if q.startswith("count_over_time")]
    assert lives and all("[1h]" in q for q in lives)
    # the same pods read over the whole window at the same step
    want = range_series(api, M + ',pod=~"' + "|".join(sorted(p for _, p in brief)) + '"', start, end, JOB_STEP_S,
                        "90s", [])
    assert {k for k in want["usage"] if (k[0], k[1]) in brief} == set(got["usage"])
    for name in COUNTERS:
        for k, (t, v) in got[name].items():
            wt, wv = want[name][k]
            np.testing.assert_array_equal(t, wt, err_msg=f"{k} {name}")
            np.testing.assert_array_equal(v, wv, err_msg=f"{k} {name}")
