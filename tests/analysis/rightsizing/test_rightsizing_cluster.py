"""Right-sizing a realistic cluster: one row per workload container, each limit near the truth the generator knows.

The cluster (tests/conftest.py: Deployment ``web`` rolled out twice with an app and a sidecar, StatefulSet ``db``,
DaemonSet ``node-agent``, CronJob ``report`` of 36 runs, Go service ``api``, a bare Pod and a one-off Job) is read
through a real Prometheus, as from a live server. The truth of a workload container is the smallest limit, at most
the largest node's size, whose throttled-period ratio over all its pods is at most the 5% target.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import CLUSTER_HOURS, SCENARIO_START
from tests.analysis.rightsizing.read_and_rightsize import rightsize_request
from throttlelab.experiment.simulation.synthetic_cluster import true_limit, workload_containers

pytestmark = pytest.mark.prometheus


@pytest.fixture(scope="module")
def run(prometheus_cluster):
    url, _, end = prometheus_cluster
    return rightsize_request(prometheus_url=url, since=f"{CLUSTER_HOURS}h", end=str(end))


def _key(r):
    return (r.namespace, r.workload_kind, r.workload, r.container)


def test_exactly_one_row_per_workload_container(run, prometheus_cluster):
    _, pods, _ = prometheus_cluster
    truth = workload_containers(pods)
    keys = [_key(r) for r in run.recommendations]
    print(f"{len(run.fetched.containers)} pod containers -> {len(keys)} rows")
    assert sorted(keys) == sorted(truth) and len(keys) == len(set(keys)) == 8
    assert len(run.fetched.containers) == sum(len(p.containers) for p in pods) == 56
    by = {_key(r): r for r in run.recommendations}
    assert by[("shop", "Deployment", "web", "app")].pods == 6  # 2 replicas x 3 ReplicaSets
    assert by[("shop", "CronJob", "report", "report")].pods == 36
    assert not any(r.container in ("", "POD") for r in run.recommendations) and run.notes == ()


def test_pod_hours_pool_the_cronjob_and_its_runs_are_read_at_a_minute(run):
    by = {_key(r): r for r in run.recommendations}
    job = by[("shop", "CronJob", "report", "report")]
    assert job.pod_hours == pytest.approx(36 * 0.75, rel=0.03) and job.step_s == 60 and run.fetched.step_s == 120
    assert job.decision != "too little data"  # 36 runs of 45 minutes: 27 pod-hours, over the 24-h minimum
    once = by[("ops", "Job", "migrate-schema", "migrate")]
    assert once.decision == "too little data" and "pod-hours" in once.reason


def test_current_limit_is_the_latest_template_and_every_pod_is_in_the_interval_unit(run):
    by = {_key(r): r for r in run.recommendations}
    app = by[("shop", "Deployment", "web", "app")]
    assert app.current_limit_cores == 0.8  # the second rollout lowered it from 1.0
    assert app.pod.startswith("web-") and app.hours_observed == pytest.approx(CLUSTER_HOURS, abs=0.1)


def test_each_limit_is_near_the_limit_that_meets_the_target(run, prometheus_cluster):
    _, pods, _ = prometheus_cluster
    truth = {k: true_limit(v, 0.05, start=SCENARIO_START) for k, v in workload_containers(pods).items()}
    ratios = {}
    for r in run.recommendations:
        if r.recommended_limit_cores is not None:
            ratios[_key(r)] = r.recommended_limit_cores / truth[_key(r)]
            print(f"{'/'.join(_key(r))}: recommended {r.recommended_limit_cores:.2f}, truth {truth[_key(r)]:.3f}, "
                  f"ratio {ratios[_key(r)]:.3f}, throttled {r.throttled_ratio:.1%}")
    assert len(ratios) == 7
    v = sorted(ratios.values())
    # measured: 0.67 (shell, quiet: its bursts unseen), 0.73 (api: 8 threads; its truth is node-a's 4 cores, where
    # periods wanting the whole node stop being throttled, a heavier tail than the 5th power read), 0.81 (report),
    # 0.92 (db), 0.95 (envoy), 0.96 (agent), 1.01 (app)
    assert 0.85 <= float(np.median(v)) <= 1.15 and v[0] >= 0.6 and v[-1] <= 1.4, ratios
    assert sum(0.8 <= x <= 1.2 for x in v) >= 5, ratios
    # (almost) never throttled at its limit: the quiet rule lowers it (its interval, 1.75x the mean demand while
    # running widened by the ladders' error, ends below this shell's truth: bursts of cv 0.8 need 2.6x)
    shell = next(r for r in run.recommendations if r.workload == "debug-shell")
    assert shell.throttled_ratio < 0.001 and shell.limit_basis == "quiet"
    assert shell.recommended_limit_high < shell.current_limit_cores and truth[_key(shell)] < shell.current_limit_cores


def _advice_and_hpa(run):
    return {_key(r): (r.runtime_advice and r.runtime_advice.to_dict(), r.hpa and r.hpa.to_dict(),
                      r.container_threads_max) for r in run.recommendations}


def test_the_go_service_with_gomaxprocs_above_its_limit_gets_gomaxprocs_advice(run):
    by = {_key(r): r for r in run.recommendations}
    api = by[("shop", "Deployment", "api", "api")]
    a = api.runtime_advice
    print(f"api: limit {api.current_limit_cores} -> {api.recommended_limit_cores}: {a.reason}")
    # its pods run on the 4- and 8-core nodes: Go before 1.25 sets GOMAXPROCS to the host's count, the largest is 8
    assert a.runtime == "go" and a.threads_seen == 8 and a.action == "set threads"
    assert a.limit_cores == api.recommended_limit_cores and a.advised_threads == int(api.recommended_limit_cores)
    assert a.reason.startswith(f"GOMAXPROCS is 8 under a {api.recommended_limit_cores:g}-core limit: set GOMAXPROCS=")
    assert "Today's 2-core limit" in a.reason
    assert [k for k, r in by.items() if r.runtime_advice] == [("shop", "Deployment", "api", "api")]
    assert api.container_threads_max == 12 and by[("shop", "StatefulSet", "db", "postgres")].container_threads_max == 10


def test_the_hpa_row_shows_its_replicas_today_and_with_the_new_requests(run):
    import math

    import numpy as np

    web = [r for r in run.recommendations if r.workload == "web"]
    assert len(web) == 2 and web[0].hpa == web[1].hpa
    assert not any(r.hpa for r in run.recommendations if r.workload != "web")
    h = web[0].hpa
    steps: dict[float, float] = {}
    for c in run.fetched.containers:
        if c.pod.startswith("web-"):
            for t, u in zip(c.times, c.usage):
                if np.isfinite(u):
                    steps[t] = steps.get(t, 0.0) + u
    p95 = float(np.quantile(list(steps.values()), 0.95))
    now = sum(r.current_request_cores for r in web)
    new = sum(r.recommended_request_cores for r in web)
    print(f"HPA web: usage p95 {p95:.2f} cores, requests {now:.2f} -> {new:.2f}: {h.sentence}")
    assert now == pytest.approx(0.55)
    assert h.replicas_now == min(6, max(2, math.ceil(p95 / (0.7 * now))))
    assert h.replicas_new == min(6, max(2, math.ceil(p95 / (0.7 * new))))
    assert (h.name, h.min_replicas, h.max_replicas, h.replicas_observed, h.target_utilisation) == ("web", 2, 6, 2, 0.7)


@pytest.mark.parametrize("read_directly", [True, False], ids=["read directly", "temporary Prometheus"])
def test_an_export_read_either_way_gives_the_same_advice_and_hpa(run, cluster_export, read_directly):
    path, _ = cluster_export
    other = rightsize_request(openmetrics_path=str(path), read_directly=read_directly)
    assert other.how.startswith("read directly" if read_directly else "backfilled")
    assert _advice_and_hpa(other) == _advice_and_hpa(run)
