"""Runtime thread advice and HPA scaling joined to workload containers from the gauges read with their CPU series."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from throttlelab.analysis.rightsizing.recommendation import Settings
from throttlelab.analysis.rightsizing.rightsizing_parallel import rightsize_all
from throttlelab.analysis.rightsizing.workload_advice import GAUGES, automaxprocs_evidence, method_lines, with_advice
from throttlelab.ingest.prometheus import ContainerCPU, WorkloadCPU

T = 60.0 * np.arange(1, 1501)  # 25 h at 60-s steps


def _pod(pod, container, usage, limit=2.0, request=0.5):
    rng = np.random.default_rng(abs(hash((pod, container))) % 2**32)
    u = np.clip(usage + 0.05 * rng.standard_normal(len(T)), 0.01, None)
    return ContainerCPU("ns", pod, container, request, limit, "kube-state-metrics", 60.0, T, u, np.zeros(len(T)),
                        np.full(len(T), 10.0), np.zeros(len(T)))


@pytest.fixture(scope="module")
def workloads():
    return [WorkloadCPU("ns", "Deployment", "api", "api", [_pod("api-a", "api", 0.6), _pod("api-b", "api", 0.6)]),
            WorkloadCPU("ns", "Deployment", "web", "app", [_pod("web-a", "app", 0.4), _pod("web-b", "app", 0.4)]),
            WorkloadCPU("ns", "Deployment", "web", "envoy", [_pod("web-a", "envoy", 0.1, request=0.1),
                                                             _pod("web-b", "envoy", 0.1, request=0.1)])]


@pytest.fixture(scope="module")
def recs(workloads):
    return rightsize_all(workloads, Settings(resamples=20))


def _hpa(target=70, lo=2, hi=6, now=2, metric="cpu", kind="Deployment", name="web"):
    lab = {"namespace": "ns", "horizontalpodautoscaler": "h"}
    return {"kube_horizontalpodautoscaler_info": [({**lab, "scaletargetref_kind": kind, "scaletargetref_name": name},
                                                   1.0)],
            "kube_horizontalpodautoscaler_spec_target_metric": [
                ({**lab, "metric_name": metric, "metric_target_type": "utilization"}, float(target))],
            "kube_horizontalpodautoscaler_spec_min_replicas": [(lab, float(lo))],
            "kube_horizontalpodautoscaler_spec_max_replicas": [(lab, float(hi))],
            "kube_horizontalpodautoscaler_status_current_replicas": [(lab, float(now))]}


def test_the_go_service_gets_gomaxprocs_advice_from_its_largest_pod(workloads, recs):
    gauges = {"go_sched_gomaxprocs_threads": [({"namespace": "ns", "pod": "api-a", "container": "api"}, 4.0),
                                              ({"namespace": "ns", "pod": "api-b", "container": "api"}, 8.0),
                                              ({"namespace": "other", "pod": "api-a", "container": "api"}, 64.0)]}
    out, notes = with_advice(recs, workloads, gauges)
    a = out[0].runtime_advice
    assert a.runtime == "go" and a.threads_seen == 8 and a.limit_cores == out[0].recommended_limit_cores
    assert a.action == "set threads" and a.reason.startswith("GOMAXPROCS is 8 under")
    assert "Today's 2-core limit" in a.reason  # the current limit feeds fewer threads than 8 too
    assert out[1].runtime_advice is None and out[2].runtime_advice is None and notes == []


def test_a_series_without_container_joins_only_a_one_container_pod(workloads, recs):
    gauges = {"system_cpu_count": [({"namespace": "ns", "pod": "api-a"}, 16.0), ({"namespace": "ns", "pod": "web-a"}, 16.0)]}
    out, notes = with_advice(recs, workloads, gauges)
    assert out[0].runtime_advice.runtime == "jvm" and out[0].runtime_advice.threads_seen == 16
    assert out[1].runtime_advice is None and out[2].runtime_advice is None  # web-a has two containers: ambiguous
    out, notes = with_advice(recs, workloads, {"system_cpu_count": [({"namespace": "ns", "pod": "web-a"}, 16.0)]})
    assert not any(r.runtime_advice for r in out) and notes and "none joined" in notes[0]


def test_container_threads_is_reported_and_never_advised_from(workloads, recs):
    gauges = {"container_threads": [({"namespace": "ns", "pod": "api-a", "container": "api"}, 40.0),
                                    ({"namespace": "ns", "pod": "api-b", "container": "api"}, 45.0)]}
    out, _ = with_advice(recs, workloads, gauges)
    assert out[0].container_threads_max == 45 and out[0].runtime_advice is None


def test_an_hpa_on_cpu_shows_replicas_with_todays_and_the_new_requests(workloads, recs):
    out, _ = with_advice(recs, workloads, _hpa())
    web = [r for r in out if r.workload == "web"]
    assert out[0].hpa is None and web[0].hpa == web[1].hpa
    h = web[0].hpa
    total = sum(m.usage for w in workloads[1:] for m in w.members)
    p95 = float(np.quantile(total, 0.95))
    new = sum(r.recommended_request_cores for r in web)
    assert h.replicas_now == min(6, max(2, math.ceil(p95 / (0.7 * 0.6))))
    assert h.replicas_new == min(6, max(2, math.ceil(p95 / (0.7 * new))))
    assert h.replicas_observed == 2 and h.target_utilisation == 0.7 and h.metric == "Resource"
    assert h.sentence.startswith("HPA h scales on CPU at 70%") and "2 replicas run" in h.sentence


def test_an_hpa_on_another_metric_or_workload_is_not_shown(workloads, recs):
    for gauges in (_hpa(metric="memory"), _hpa(name="api-old"), _hpa(kind="StatefulSet")):
        out, _ = with_advice(recs, workloads, gauges)
        assert not any(r.hpa for r in out)


def test_rows_without_gauges_are_unchanged(workloads, recs):
    out, notes = with_advice(recs, workloads, {m: [] for m in GAUGES})
    assert out == recs and notes == []
    assert all(dataclasses.asdict(r)["runtime_advice"] is None for r in out)


def test_method_text_states_every_rule_and_cites_the_automaxprocs_table():
    text = " ".join(method_lines())
    for word in ("GOMAXPROCS", "availableProcessors", ".NET", "Node.js", "llama.cpp/ollama", "container_threads",
                 "HorizontalPodAutoscaler", "namespace and pod"):
        assert word in text
    ev = automaxprocs_evidence()
    assert "data/published/automaxprocs_gomaxprocs.csv" in ev and "GOMAXPROCS 24" in ev and "50% less" in ev
