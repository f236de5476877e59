"""Tests of throttlelab.core.metrics: one catalogue of CPU counters, every other vocabulary derived from it."""

from __future__ import annotations

import ast
import doctest
import re
from pathlib import Path

import pytest

from throttlelab import tables
from throttlelab.core import metrics
from throttlelab.core.cpu_stat import V1_USAGE_FILE
from throttlelab.core.metrics import (
    CADVISOR_COUNTERS, CADVISOR_GAUGES, COUNTER, CPU_COUNTERS, KSM_HPA, KSM_OWNERS, KUBERNETES_METRICS, NODE_SIZE,
    from_cadvisor, from_field,
)

LIB = Path(__file__).resolve().parents[2] / "lib" / "throttlelab"


def test_the_canonical_names_are_the_samples_columns_in_their_order():
    samples = [c.name for c in tables.SAMPLES]
    names = [c.name for c in CPU_COUNTERS]
    assert set(names) <= set(samples)
    assert names == [n for n in samples if n in names]
    dtypes = {c.name: c.dtype for c in tables.SAMPLES}
    for c in CPU_COUNTERS:
        assert dtypes[c.name].is_integer() == c.integer, c.name


def test_run_columns_rates_and_fields_are_columns_of_their_tables():
    from dataclasses import fields

    from throttlelab.ingest.prometheus import ContainerCPU

    runs = {c.name for c in tables.RUNS}
    assert {c.run_column for c in CPU_COUNTERS if c.run_column} <= runs
    assert [c.rate for c in CPU_COUNTERS if c.rate] == ["cores", "periods_per_second", "throttled_periods_per_second",
                                                        "throttled_seconds_per_second"]  # the rates table's measures
    assert COUNTER["throttled_seconds"].rate in {c.name for c in tables.INTERVALS}
    assert {c.container_field for c in CPU_COUNTERS if c.container_field} <= {f.name for f in fields(ContainerCPU)}
    assert COUNTER["usage_seconds"].run_column == "cpu_seconds" and COUNTER["usage_seconds"].rate == "cores"
    # cAdvisor's counters are exactly those with a rate and a ContainerCPU field
    assert {c.name for c in CPU_COUNTERS if c.rate} == {c.name for c in CPU_COUNTERS if c.container_field} \
        == set(CADVISOR_COUNTERS)


def test_cadvisor_names_and_fields_map_both_ways():
    assert len(CADVISOR_COUNTERS) == 4 and len(set(CADVISOR_COUNTERS.values())) == 4
    for name, metric in CADVISOR_COUNTERS.items():
        assert from_cadvisor(metric).name == name and metric.startswith("container_cpu_")
        assert from_field(COUNTER[name].container_field).name == name
    with pytest.raises(KeyError):
        from_cadvisor("container_memory_usage_bytes")
    with pytest.raises(KeyError):
        from_field("cores")
    assert set(CADVISOR_GAUGES.values()) == {"quota", "period_us"}


def test_scales_turn_kernel_units_into_seconds():
    for c in CPU_COUNTERS:
        if c.integer:
            assert c.v2_key == c.v1_key == c.name and c.v2_scale == c.v1_scale == 1
        else:
            assert c.v2_key.endswith("_usec") and c.v2_scale == 1e6 and c.v1_scale == 1e9


def test_kubernetes_metrics_are_kube_state_metrics_and_the_node_size():
    assert len(KUBERNETES_METRICS) == len(set(KUBERNETES_METRICS)) == 3 + 3 + 5 + 2
    assert all(m.startswith("kube_") for m in KUBERNETES_METRICS if m not in NODE_SIZE)
    assert NODE_SIZE == ("machine_cpu_cores", "kube_node_status_allocatable")
    assert set(KSM_OWNERS.values()) == {"pod", "replicaset", "job_name"}
    assert all(m == "kube_horizontalpodautoscaler_" + k for k, m in KSM_HPA.items())


# -- every other name of a counter lives here only ---------------------------------------------------------------
#: The catalogue's names that are not canonical (cgroup keys, cAdvisor metrics and gauges, kube-state-metrics and
#: node-size metrics): no module outside ``core/`` may spell them in code.  (``cpuacct.usage`` is a file that cgroup
#: readers open, so it is not here.)
FOREIGN = sorted({n for c in CPU_COUNTERS for n in (c.v2_key, c.v1_key, c.cadvisor) if n}
                 - {c.name for c in CPU_COUNTERS} - {V1_USAGE_FILE} | set(CADVISOR_GAUGES) | set(KUBERNETES_METRICS))
#: The stems of kube-state-metrics' names (``kube_pod_``, ``kube_horizontalpodautoscaler_``...): a name put together
#: from a stem (``f"kube_pod_container_resource_{x}"``) is spelled too.
STEMS = sorted({"_".join(m.split("_")[:2]) + "_" for m in KUBERNETES_METRICS if m.startswith("kube_")})
_WORD = re.compile(r"(?<![A-Za-z0-9_])((?:" + "|".join(map(re.escape, FOREIGN)) + r")(?![A-Za-z0-9_])|"
                   + "|".join(map(re.escape, STEMS)) + ")")


def foreign_literals(source: str) -> list[tuple[int, str]]:
    """``(line, name)`` of each catalogue name spelled in a string literal of ``source`` (docstrings are prose)."""
    tree = ast.parse(source)
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    return [(node.lineno, m) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
            for m in _WORD.findall(node.value)]


def test_the_checker_finds_a_name_in_code_and_not_in_prose():
    snippet = ('"""Reads ``throttled_usec``."""\nX = {"throttled_usec": 1}\n'
               'def f():\n    """``container_spec_cpu_quota``"""\n    return f"rate(container_cpu_usage_seconds_total[5m])"\n'
               'Y = "nr_throttled", "throttled_usec_x"\n')
    assert foreign_literals(snippet) == [(2, "throttled_usec"), (5, "container_cpu_usage_seconds_total")]
    assert {"usage_usec", "throttled_time", "container_cpu_cfs_periods_total", "container_spec_cpu_period"} <= set(FOREIGN)
    snippet = 'Q = f"last_over_time(kube_pod_labels{{{x}}})"\nM = "kube_horizontalpodautoscaler_" + k\nB = "kube_backend"\n'
    assert foreign_literals(snippet) == [(1, "kube_pod_labels"), (2, "kube_horizontalpodautoscaler_")]
    assert {"kube_pod_owner", "kube_node_status_allocatable", "machine_cpu_cores"} <= set(FOREIGN)


def test_no_module_outside_core_spells_a_counter_by_another_vocabulary():
    found = [f"{path.relative_to(LIB.parent)}:{line}: {name}"
             for path in sorted(LIB.rglob("*.py")) if "core" not in path.relative_to(LIB).parts[:1]
             for line, name in foreign_literals(path.read_text())]
    assert not found, "use throttlelab.core.metrics (the catalogue) instead of:\n" + "\n".join(found)


def test_the_examples_hold():
    result = doctest.testmod(metrics)
    assert result.attempted >= 4 and result.failed == 0
