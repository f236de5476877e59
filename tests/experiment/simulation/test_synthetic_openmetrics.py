"""Synthetic containers as OpenMetrics text: the metrics a limit adds, a restart's new id, node sizes, the backfill."""

from __future__ import annotations

import shutil

import pytest

from throttlelab.experiment.simulation.synthetic_containers import ContainerSpec
from throttlelab.experiment.simulation.synthetic_openmetrics import backfill, container_lines, node_lines, openmetrics_text

START = 1_700_000_000.0


def _names(lines):
    return {ln.split("{")[0] for ln in lines}


def test_a_limited_container_has_cfs_counters_and_kube_state_metrics_gauges():
    spec = ContainerSpec("shop", "web-0", "web", request=0.5, limit=1.0, mean_cores=0.3)
    stamps, lines = container_lines(spec, start=START, hours=1)
    assert len(stamps) == len(lines)
    assert _names(lines) == {
        "container_cpu_usage_seconds_total", "container_cpu_cfs_periods_total",
        "container_cpu_cfs_throttled_periods_total", "container_cpu_cfs_throttled_seconds_total",
        "kube_pod_labels", "kube_pod_container_resource_requests", "kube_pod_container_resource_limits",
        "container_spec_cpu_quota", "container_spec_cpu_period"}
    usage = [ln for ln in lines if ln.startswith("container_cpu_usage_seconds_total")]
    assert len(usage) == 240  # a scrape every 15 s for an hour
    values = [float(ln.split()[1]) for ln in usage]
    assert all(b >= a for a, b in zip(values, values[1:]))  # a counter
    assert any("container_spec_cpu_quota" in ln and " 100000 " in ln for ln in lines)


def test_no_limit_no_cfs_metrics_and_a_restart_gets_a_new_id():
    free = ContainerSpec("shop", "c-0", "c", request=None, limit=None, mean_cores=0.3)
    _, lines = container_lines(free, start=START, hours=1, kube_state_metrics=False)
    assert _names(lines) == {"container_cpu_usage_seconds_total"}
    restarted = ContainerSpec("shop", "q-0", "q", request=0.5, limit=1.0, mean_cores=0.3, restart_at=0.5)
    _, lines = container_lines(restarted, start=START, hours=1)
    ids = {ln.split('id="')[1].split('"')[0] for ln in lines if 'id="' in ln}
    assert ids == {"/kubepods/q-0/q-0", "/kubepods/q-0/q-1"}


def test_node_sizes_every_minute():
    stamps, lines = node_lines({"node-0": 8.0, "node-1": 2.0}, start=START, hours=1)
    assert len(lines) == 120 and len(stamps) == 120
    assert lines[0].startswith('machine_cpu_cores{node="node-0",instance="node-0:10250"} 8 ')
    assert node_lines(None, start=START, hours=1)[1] == []


def test_text_ends_with_eof():
    spec = ContainerSpec("shop", "web-0", "web", request=0.5, limit=1.0, mean_cores=0.3)
    text = openmetrics_text([spec], start=START, hours=1, nodes={"n": 4.0})
    assert text.endswith("# EOF\n") and "machine_cpu_cores" in text


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool (Debian prometheus) not installed")
def test_backfill_writes_blocks_and_cleans_up(tmp_path):
    spec = ContainerSpec("shop", "web-0", "web", request=0.5, limit=1.0, mean_cores=0.3)
    n = backfill([spec], tmp_path / "tsdb", start=START, hours=2, work_dir=tmp_path / "work", nodes={"n": 4.0})
    assert n == len(container_lines(spec, start=START, hours=2)[1]) + 120  # one node, a gauge a minute for 2 h
    assert any((tmp_path / "tsdb").iterdir())  # promtool made blocks
    assert not list((tmp_path / "work").glob("*.om"))  # the day files are removed
