"""Each workload container's runtime thread advice and HPA scaling, joined from the gauges read with its CPU series.

Runtime threads
    ``go_sched_gomaxprocs_threads`` and ``system_cpu_count`` join a container by ``namespace`` and ``pod``, and by
    ``container`` where the series has it (without it, only a pod's one container is joined).  A row takes the
    largest of its pods' last values in the window and is advised against the recommended limit (the current one
    where nothing is recommended).  cAdvisor's ``container_threads`` is reported (its maximum) and never advised from.
HPAs
    kube-state-metrics' ``kube_horizontalpodautoscaler_info`` names the target (``scaletargetref_kind``,
    ``scaletargetref_name``); an HPA with a ``spec_target_metric{metric_name="cpu",metric_target_type="utilization"}``
    scales on CPU utilisation of the pod's summed requests (kube-state-metrics does not tell a ``ContainerResource``
    metric apart).  Every row of its workload states the replicas at the usage p95 (all pods and containers summed per
    step) with today's and with the recommended requests.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from throttlelab.analysis.rightsizing.hpa import hpa_scaling
from throttlelab.analysis.rightsizing.recommendation import Rightsizing
from throttlelab.analysis.rightsizing.runtime_advice import RULES, RUNTIME_METRICS, runtime_advice
from throttlelab.core.metrics import KSM_HPA

THREADS = "container_threads"
#: The gauges read over the window with the CPU series: metric -> reducer (``last``/``max`` over the window).
GAUGES = {**dict.fromkeys(RUNTIME_METRICS.values(), "last"), THREADS: "max", **dict.fromkeys(KSM_HPA.values(), "last")}


def _pod_values(gauges: dict, metric: str, pods: dict[tuple[str, str], set[str]]) -> dict[tuple[str, str, str], float]:
    """``(namespace, pod, container) -> largest value`` of ``metric``'s series that join a container of ``pods``
    (``(namespace, pod) -> its containers``)."""
    out: dict[tuple[str, str, str], float] = {}
    for labels, v in gauges.get(metric, ()):
        ns, pod, ctr = labels.get("namespace", ""), labels.get("pod", ""), labels.get("container", "")
        have = pods.get((ns, pod), set())
        if not ctr and len(have) == 1:  # no container label: a one-container pod's
            ctr = next(iter(have))
        if ctr in have and np.isfinite(v):
            out[(ns, pod, ctr)] = max(out.get((ns, pod, ctr), -np.inf), v)
    return out


def _limit_note(advice, current: float | None, recommended: float | None) -> str:
    """What to say when today's limit, not only the recommended one, feeds fewer threads than the runtime runs."""
    if current is None or current == recommended or advice.threads_seen <= np.ceil(current - 1e-9):
        return ""
    return (f" Today's {current:g}-core limit already feeds fewer threads than that: part of the throttling seen is "
            f"the runtime's threads, not demand.")


def _total_usage_p95(workloads) -> float | None:
    """p95 over steps of the usage of every pod and container of a workload, summed per step."""
    t = np.concatenate([m.times[np.isfinite(m.usage)] for w in workloads for m in w.members])
    u = np.concatenate([m.usage[np.isfinite(m.usage)] for w in workloads for m in w.members])
    if not len(t):
        return None
    steps, inv = np.unique(np.round(t, 3), return_inverse=True)
    return float(np.quantile(np.bincount(inv, u, len(steps)), 0.95))


def _hpas(gauges: dict) -> dict[tuple[str, str, str], dict]:
    """``(namespace, kind, name) -> {name, target, min, max, current}`` of HPAs on CPU utilisation."""
    def by_hpa(metric):
        return {(lb.get("namespace", ""), lb.get("horizontalpodautoscaler", "")): v
                for lb, v in gauges.get(KSM_HPA[metric], ())}

    cpu = {(lb.get("namespace", ""), lb.get("horizontalpodautoscaler", "")): v
           for lb, v in gauges.get(KSM_HPA["spec_target_metric"], ())
           if lb.get("metric_name") == "cpu" and lb.get("metric_target_type") == "utilization" and v > 0}
    lo, hi, now = by_hpa("spec_min_replicas"), by_hpa("spec_max_replicas"), by_hpa("status_current_replicas")
    out = {}
    for lb, _ in gauges.get(KSM_HPA["info"], ()):
        key = (lb.get("namespace", ""), lb.get("horizontalpodautoscaler", ""))
        if key in cpu:
            out[(key[0], lb.get("scaletargetref_kind", ""), lb.get("scaletargetref_name", ""))] = dict(
                name=key[1], target=cpu[key] / 100, min=int(lo.get(key, 1)), max=int(hi.get(key, lo.get(key, 1))),
                current=int(now[key]) if key in now else None)
    return out


def with_advice(recs: list[Rightsizing], workloads, gauges: dict) -> tuple[list[Rightsizing], list[str]]:
    """``recs`` (in the order of ``workloads``) with ``runtime_advice``, ``container_threads_max`` and ``hpa`` set
    from ``gauges`` (``Fetch.gauges``); and the notes to say once."""
    pods: dict[tuple[str, str], set[str]] = {}
    for w in workloads:
        for m in w.members:
            pods.setdefault((m.namespace, m.pod), set()).add(m.container)
    runtimes = {rt: _pod_values(gauges, metric, pods) for rt, metric in RUNTIME_METRICS.items()}
    threads = _pod_values(gauges, THREADS, pods)
    hpas = _hpas(gauges)
    by_workload: dict[tuple[str, str, str], list] = {}
    for w in workloads:
        by_workload.setdefault((w.namespace, w.workload_kind, w.workload), []).append(w)
    recs_of = {(r.namespace, r.workload_kind, r.workload, r.container): r for r in recs}
    out = []
    for r, w in zip(recs, workloads):
        keys = [(m.namespace, m.pod, m.container) for m in w.members]
        change: dict = {}
        seen = [v for k in keys if k in threads for v in [threads[k]]]
        if seen:
            change["container_threads_max"] = int(max(seen))
        for rt, values in runtimes.items():
            got = [values[k] for k in keys if k in values]
            if got:
                told = r.recommended_limit_cores if r.decision not in ("too little data", "keep (policy)") \
                    else r.current_limit_cores
                a = runtime_advice(rt, max(got), told)
                a = dataclasses.replace(a, reason=a.reason + _limit_note(a, r.current_limit_cores, told))
                change["runtime_advice"] = a
                break
        h = hpas.get((r.namespace, r.workload_kind, r.workload))
        if h is not None:
            siblings = by_workload[(r.namespace, r.workload_kind, r.workload)]
            rows = [recs_of[s.key] for s in siblings]
            now = sum(x.current_request_cores or 0.0 for x in rows)
            new = sum((x.recommended_request_cores if x.recommended_request_cores is not None
                       else x.current_request_cores) or 0.0 for x in rows)
            p95 = _total_usage_p95(siblings)
            if now > 0 and new > 0 and p95 is not None:
                s = hpa_scaling(h["name"], "Resource", h["target"], h["min"], h["max"], total_usage_p95=p95,
                                request_now=now, request_new=new)
                running = f" {h['current']} replicas run at the window's end." if h["current"] is not None else ""
                change["hpa"] = dataclasses.replace(s, replicas_observed=h["current"], sentence=s.sentence + running)
        out.append(dataclasses.replace(r, **change) if change else r)
    notes = []
    if any(g for g in (gauges.get(m) for m in RUNTIME_METRICS.values())) and not any(x.runtime_advice for x in out):
        notes.append("Runtime thread metrics were found but none joined a workload container by namespace, pod "
                     "and container.")
    return out, notes


_NAMES = {"go": "Go", "jvm": "JVM", "dotnet": ".NET", "node": "Node.js", "llama.cpp": "llama.cpp/ollama",
          "container_threads": "cAdvisor"}


def automaxprocs_evidence() -> str:
    """The shipped automaxprocs table's figure: the host's GOMAXPROCS against the quota's, under its 2-core quota."""
    import csv

    from throttlelab.ingest.published import published_path

    path = published_path("automaxprocs")
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    best = max(rows, key=lambda r: float(r["throughput_rps"]))
    worst = max(rows, key=lambda r: int(r["threads"]))
    loss = 1 - float(worst["throughput_rps"]) / float(best["throughput_rps"])
    return (f"Evidence: in automaxprocs' published table (data/published/{path.name}), a Go load balancer under a "
            f"{best['limit']} quota served {float(best['throughput_rps']):,.0f} requests/s with GOMAXPROCS "
            f"{best['threads']} and {float(worst['throughput_rps']):,.0f}/s with GOMAXPROCS {worst['threads']} (the "
            f"host's CPU count): {loss:.0%} less throughput, and nothing errored.")


def method_lines() -> list[str]:
    """How rows get their thread advice and HPA sentence, with each runtime's rule under a CPU quota."""
    metrics = ", ".join(f"{_NAMES[rt]} {m}" for rt, m in RUNTIME_METRICS.items())
    return [
        f"Thread advice: where a container's own metrics say how many threads its runtime runs ({metrics}), joined "
        "to the container by namespace and pod, and by container where the series has it, the largest of its pods' "
        "last values is compared with the recommended limit; a runtime running more threads than the quota feeds "
        "spends each period's quota early on all threads at once and is throttled for the rest of the period.",
        *(f"{_NAMES[k]}: {rule}" for k, rule in RULES.items()),
        ".NET, Node.js and llama.cpp/ollama export no such metric: their rule is stated here and no row is advised.",
        automaxprocs_evidence(),
        "Autoscaling: where kube-state-metrics shows a HorizontalPodAutoscaler scaling the workload on CPU "
        "utilisation, its row says so and shows the replicas it asks for at the usage p95 (every pod and container "
        "summed per step), ceil(usage / (target x request)) within its min and max, with today's and with the "
        "recommended requests; nothing here changes the HPA. kube-state-metrics does not tell a ContainerResource "
        "metric from a Resource one: the request is the pod's summed container requests.",
    ]
