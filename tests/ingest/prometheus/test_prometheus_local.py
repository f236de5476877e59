"""Tests of throttlelab.ingest.prometheus.prometheus_local: a local Prometheus on a backfilled TSDB, and saved exports."""

from __future__ import annotations

import gzip
import urllib.request

import numpy as np
import pytest

from throttlelab.errors import EnvironmentProblem, InputError
from throttlelab.experiment.simulation.synthetic_containers import scenario_specs
from throttlelab.experiment.simulation.synthetic_openmetrics import openmetrics_text
from throttlelab.ingest.prometheus.prometheus_local import (LocalPrometheus, fetch_from_export, prometheus_available, run_promtool,
                                                 tsdb_time_range)

START, HOURS = 1_767_225_600.0, 6


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    path = tmp_path_factory.mktemp("export") / "shop.om.gz"
    path.write_bytes(gzip.compress(openmetrics_text(scenario_specs("shop"), start=START, hours=HOURS).encode()))
    return path


def test_a_missing_export_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no such export file"):
        fetch_from_export(tmp_path / "nope.om")


def test_reading_an_export_directly(export):
    f, how = fetch_from_export(export, use_prometheus=False)
    assert how == "read directly"
    assert {c.pod for c in f.containers} == {s.pod for s in scenario_specs("shop")}


@pytest.mark.prometheus
def test_promtool_backfill_agrees_with_the_direct_reader(export):
    if not prometheus_available()[0]:
        pytest.skip(prometheus_available()[1])
    via, how = fetch_from_export(export)
    direct, _ = fetch_from_export(export, use_prometheus=False, step_s=via.step_s, window_s=via.end - via.start,
                                  end=via.end)
    assert how == "backfilled by promtool into a temporary local Prometheus"
    a = {c.pod: c for c in via.containers}
    b = {c.pod: c for c in direct.containers}
    assert set(a) == set(b)
    for pod in a:
        assert np.nanmean(a[pod].usage) == pytest.approx(np.nanmean(b[pod].usage), rel=0.05), pod
        assert a[pod].limit_cores == b[pod].limit_cores


@pytest.mark.prometheus
def test_local_prometheus_serves_and_stops(tmp_path):
    if not prometheus_available()[0]:
        pytest.skip(prometheus_available()[1])
    assert tsdb_time_range(tmp_path / "tsdb") is None
    with LocalPrometheus(tmp_path / "tsdb") as prom:
        with urllib.request.urlopen(f"{prom.url}/-/ready", timeout=5) as r:
            assert r.status == 200
        proc = prom.proc
    assert proc.poll() is not None and prom.proc is None


@pytest.mark.prometheus
def test_promtool_errors_are_one_line(tmp_path):
    if not prometheus_available()[0]:
        pytest.skip(prometheus_available()[1])
    bad = tmp_path / "bad.om"
    bad.write_text("this is not openmetrics\n")
    with pytest.raises(EnvironmentProblem, match=r"bad.om: promtool could not backfill it"):
        run_promtool(bad, tmp_path / "tsdb")
    with pytest.raises(EnvironmentProblem, match="promtool not found"):
        run_promtool(bad, tmp_path / "tsdb", promtool="/nonexistent/promtool")
