"""A saved OpenMetrics export of cAdvisor and kube-state-metrics series -> the same per-container CPU as from Prometheus.

Used where no Prometheus is installed (the notebook's bundled default) and by
``throttlelab recommend --openmetrics FILE``.  Each counter's increase between
consecutive samples (a drop is a restart: the new value is the increase) is
summed per (namespace, pod, container) into steps; the throttled ratio's p95
is over 5-minute steps.  Lines that are not samples of the metrics used are
counted, a malformed sample line raises :class:`~throttlelab.errors.InputError`
with its line number.  (``prometheus_client``'s OpenMetrics parser took about
160 us per line here, this reader about 4 us: it only reads the few metrics used.)
"""

from __future__ import annotations

import gzip
import math
import re
from collections import defaultdict
from pathlib import Path

import numpy as np

from throttlelab.core.metrics import (
    CADVISOR_GAUGES, CADVISOR_PERIOD, CADVISOR_QUOTA, KSM_LIMITS, KSM_OWNERS, KSM_POD_OWNER, KSM_REPLICASET_OWNER,
    KSM_REQUESTS, NODE_SIZE,
)
from throttlelab.errors import InputError
from throttlelab.ingest.prometheus.container_cpu import ContainerCPU, Fetch
from throttlelab.ingest.prometheus.container_queries import choose_step, parse_selector
from throttlelab.ingest.prometheus.prometheus_owners import JOB_STEP_S, short_lived_pods
from throttlelab.ingest.prometheus.range_series import COUNTERS
from throttlelab.ingest.prometheus.workload_owners import OwnerTables

_LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+(\S+))?\s*$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
_GAUGES = {KSM_REQUESTS, KSM_LIMITS, *CADVISOR_GAUGES}
NOT_CONTAINERS = ("", "POD")  # cAdvisor's pod-level cgroup and the pause container
_NAME_OF = {v: k for k, v in COUNTERS.items()}


def _open(path: Path):
    return gzip.open(path, "rt") if path.suffix == ".gz" else open(path)


def _parse(path: Path, namespace: str | None, direct: dict[str, str], wanted=()):
    series: dict[tuple, list] = defaultdict(list)
    extra: dict[tuple[str, str], list] = defaultdict(list)  # (metric, label text) -> [(ts, value)] of gauges asked for
    gauges: dict[tuple, tuple[float, float]] = {}
    nodes: dict[str, dict[tuple[str, str], float]] = {g: {} for g in NODE_SIZE}  # gauge -> (node, instance) -> cores
    where: dict[tuple, set[tuple[str, str]]] = defaultdict(set)  # container key -> its (node, instance) labels
    owners = OwnerTables()
    namespaces: set[str] = set()  # every namespace with container usage, whatever was asked for
    skipped = 0
    seen: dict[str, dict] = {}
    try:
        fh = _open(path)
    except OSError as exc:
        raise InputError(path, None, "cannot open", exc.strerror or str(exc)) from None
    with fh:
        for no, line in enumerate(fh, 1):
            if line.startswith("#") or not line.strip():
                continue
            name = line.split("{", 1)[0].split(" ", 1)[0]
            if name in NODE_SIZE:
                m = _LINE.match(line)
                labels = dict(_LABEL.findall(m.group(2) or "")) if m else {}
                if m and labels.get("resource", "cpu") == "cpu" and float(m.group(3)) > 0:
                    nodes[name][(labels.get("node", ""), labels.get("instance", ""))] = float(m.group(3))
                continue
            if name in KSM_OWNERS:
                m = _LINE.match(line)
                labels = dict(_LABEL.findall(m.group(2) or "")) if m else {}
                if m and (not namespace or labels.get("namespace") == namespace):
                    _add_owner(owners, name, labels)
                continue
            if name in wanted:
                m = _LINE.match(line)
                if not m or m.group(4) is None:
                    raise InputError(path, no, "not an OpenMetrics sample with a timestamp", line.strip()[:100])
                try:
                    extra[(name, m.group(2) or "")].append((float(m.group(4)), float(m.group(3))))
                except ValueError:
                    raise InputError(path, no, "value or timestamp is not a number", line.strip()[:100]) from None
                continue
            if name not in _NAME_OF and name not in _GAUGES:
                skipped += 1
                continue
            m = _LINE.match(line)
            if not m or m.group(4) is None:
                raise InputError(path, no, "not an OpenMetrics sample with a timestamp", line.strip()[:100])
            text = m.group(2) or ""
            labels = seen.get(text)
            if labels is None:  # a series' label text repeats on every one of its samples
                labels = seen[text] = dict(_LABEL.findall(text))
            if name == COUNTERS["usage"] and labels.get("container", "") not in NOT_CONTAINERS:
                namespaces.add(labels.get("namespace", ""))
            if namespace and labels.get("namespace") != namespace:
                continue
            if labels.get("container", "") in NOT_CONTAINERS:  # as fetch_containers' container!="",container!="POD"
                continue
            if any(labels.get(k) != v for k, v in direct.items()):
                continue
            if name in (KSM_REQUESTS, KSM_LIMITS) \
                    and labels.get("resource") != "cpu":
                continue
            try:
                value, ts = float(m.group(3)), float(m.group(4))
            except ValueError:
                raise InputError(path, no, "value or timestamp is not a number", line.strip()[:100]) from None
            key = (labels.get("namespace", ""), labels.get("pod", ""), labels.get("container", ""))
            if name in _GAUGES:
                old = gauges.get((name, key))
                if old is None or ts >= old[0]:
                    gauges[(name, key)] = (ts, value)
            else:
                series[(name, key, labels.get("id", ""))].append((ts, value))
                if name == COUNTERS["usage"]:
                    where[key].add((labels.get("node", ""), labels.get("instance", "")))
    return series, gauges, _node_cores(nodes, where), owners, namespaces, extra


def _window_gauges(extra: dict[tuple[str, str], list], wanted: dict[str, str], namespace: str | None, start: float,
                   end: float) -> dict[str, list[tuple[dict[str, str], float]]]:
    """As :func:`~throttlelab.ingest.prometheus.container_queries.window_gauges`: each series' last or largest value in
    ``(start, end]``."""
    out: dict[str, list[tuple[dict[str, str], float]]] = {m: [] for m in wanted}
    for (metric, text), pts in sorted(extra.items()):
        labels = dict(_LABEL.findall(text))
        if namespace and labels.get("namespace") != namespace:
            continue
        inside = sorted(p for p in pts if start < p[0] <= end)
        if inside:
            out[metric].append((labels, max(v for _, v in inside) if wanted[metric] == "max" else inside[-1][1]))
    return out


def _add_owner(owners: OwnerTables, metric: str, labels: dict[str, str]) -> None:
    """One owner sample into the tables (every sample of the export counts: the window's whole history)."""
    ns, obj = labels.get("namespace", ""), labels.get(KSM_OWNERS[metric], "")
    kind, name = labels.get("owner_kind", ""), labels.get("owner_name", "")
    if metric == KSM_POD_OWNER:
        owners.add_pod(ns, obj, kind, name, controller=labels.get("owner_is_controller", "true") == "true")
    elif metric == KSM_REPLICASET_OWNER:
        owners.replicasets[(ns, obj)] = (kind, name)
    else:
        owners.jobs[(ns, obj)] = (kind, name)


def _node_cores(nodes: dict[str, dict[tuple[str, str], float]], where: dict[tuple, set[tuple[str, str]]]):
    """``key -> CPU count of its node`` as :func:`~throttlelab.ingest.prometheus.container_cpu.fetch_containers` joins it:
    ``machine_cpu_cores`` else ``kube_node_status_allocatable``, by ``node`` or ``instance`` label, the largest
    node where the join finds none, ``None`` without either metric."""
    sizes = nodes[NODE_SIZE[0]] or nodes[NODE_SIZE[1]]
    if not sizes:
        return lambda key: None
    largest = max(sizes.values())
    by_node = {n: v for (n, _), v in sizes.items() if n}
    by_inst = {i: v for (_, i), v in sizes.items() if i}

    def of(key):
        found = [by_node.get(n) or by_inst.get(i) for n, i in where.get(key, ())]
        found = [v for v in found if v]
        return max(found) if found and len(set(sizes.values())) > 1 else largest

    return of


def _increases(points: list[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    a = np.array(sorted(points))
    t, v = a[:, 0], a[:, 1]
    d = np.diff(v)
    inc = np.where(d >= 0, d, v[1:])  # a counter that dropped restarted from zero
    return t[1:], inc


def read_openmetrics_containers(path, *, window_s: float | None = None, end: float | None = None,
                                namespace: str | None = None, selector: str | None = None,
                                step_s: float | None = None, gauges: dict[str, str] | None = None) -> Fetch:
    """Per-container CPU (as :func:`~throttlelab.ingest.prometheus.container_cpu.fetch_containers`) from an OpenMetrics file.

    ``end`` defaults to the last sample, ``window_s`` to everything in the file; ``selector`` matches the series' labels;
    ``gauges`` as for :func:`~throttlelab.ingest.prometheus.container_cpu.fetch_containers`.
    """
    path = Path(path)
    wanted = dict(gauges or {})
    series, gauges, node_of, owners, namespaces, extra = _parse(path, namespace, parse_selector(selector), wanted)
    if not series:
        raise InputError(path, None, f"no {COUNTERS['usage']} samples",
                         (f"namespace {namespace!r}; namespaces with containers: "
                          + (", ".join(sorted(namespaces)[:10]) or "none")) if namespace else "any namespace")
    t_last = max(max(p[0] for p in pts) for pts in series.values())
    t_first = min(min(p[0] for p in pts) for pts in series.values())
    end = t_last if end is None else end
    window_s = (end - t_first) if window_s is None else window_s
    start = end - window_s
    if step_s is None:
        n = max(len(p) for p in series.values())
        span = max(t_last - t_first, 1.0)
        scrape = span / max(n - 1, 1)
        step_s = choose_step(window_s, max(60.0, math.ceil(4 * scrape / 60) * 60))  # as fetch_containers
    brief = short_lived_pods({(k[0], k[1]) for _, k, _ in series}, owners) if step_s > JOB_STEP_S else set()
    steps = {k: (JOB_STEP_S if (k[0], k[1]) in brief else step_s) for _, k, _ in series}  # Job pods: a minute
    sums: dict[tuple, dict[str, np.ndarray]] = defaultdict(dict)
    fine5 = int(max(1, math.floor(window_s / 300)))
    five: dict[tuple, dict[str, np.ndarray]] = defaultdict(dict)
    with_id = {(name, key) for name, key, i in series if i}
    for (name, key, _id), pts in series.items():
        if not _id and (name, key) in with_id:  # USAGE_COPY: cAdvisor's own series is there
            continue
        t, inc = _increases(pts)
        keep = (t > start) & (t <= end)
        t, inc = t[keep], inc[keep]
        col = _NAME_OF[name]
        st = steps[key]
        nsteps = int(math.floor(window_s / st + 1e-9))
        idx = np.clip(np.ceil((t - start) / st).astype(np.int64) - 1, 0, nsteps - 1)
        acc = sums[key].setdefault(col, np.zeros(nsteps))
        acc += np.bincount(idx, inc, nsteps)
        cnt = sums[key].setdefault(col + "_n", np.zeros(nsteps))
        cnt += np.bincount(idx, None, nsteps)
        if col in ("periods", "throttled_periods"):
            i5 = np.clip(np.ceil((t - start) / 300).astype(np.int64) - 1, 0, fine5 - 1)
            a5 = five[key].setdefault(col, np.zeros(fine5))
            a5 += np.bincount(i5, inc, fine5)
    out = []
    for key in sorted(sums):
        s = sums[key]
        if "usage" not in s or not s["usage_n"].any():
            continue
        st = steps[key]
        nsteps = len(s["usage"])
        arrays = {}
        for col in COUNTERS:
            if col in s:
                arrays[col] = np.where(s[col + "_n"] > 0, s[col] / st, np.nan)
            else:
                arrays[col] = np.full(nsteps, np.nan)
        p95 = r = None
        if "periods" in five[key]:
            p, q = five[key]["periods"], five[key].get("throttled_periods", np.zeros(fine5))
            r = q[p > 0] / p[p > 0]
            p95 = float(np.quantile(r, 0.95)) if len(r) else None
        lim = gauges.get((KSM_LIMITS, key))
        quota, period = gauges.get((CADVISOR_QUOTA, key)), gauges.get((CADVISOR_PERIOD, key))
        if lim is not None:
            limit, source = lim[1], "kube-state-metrics"
        elif quota and period and quota[1] > 0 and period[1] > 0:
            limit, source = quota[1] / period[1], "cadvisor"
        else:
            limit, source = None, "none"
        req = gauges.get((KSM_REQUESTS, key))
        out.append(ContainerCPU(*key, request_cores=req[1] if req else None, limit_cores=limit, limit_source=source,
                                step_s=st, times=start + st * np.arange(1, nsteps + 1), usage=arrays["usage"],
                                throttled_seconds=arrays["throttled_seconds"], periods=arrays["periods"],
                                throttled_periods=arrays["throttled_periods"], throttled_ratio_p95_5m=p95,
                                node_cores=node_of(key), throttled_ratios_5m=r))
    if not out:
        raise InputError(path, None, "no container usage in the window", f"{start:.0f}..{end:.0f}")
    return Fetch(out, start, end, step_s, 0, [], owners=owners,
                 gauges=_window_gauges(extra, wanted, namespace, start, end))
