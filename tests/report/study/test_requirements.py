"""Tests of throttlelab.report.study.requirements: what a study run requires, checked on this machine."""

from __future__ import annotations

from throttlelab.report.study.requirements import check


def test_unknown_and_no_requirements():
    assert check([]) == (True, "")
    ok, reason = check(["gpu"])
    assert not ok and reason == "unknown requirement 'gpu' (known: local_cgroup, ffmpeg, chromium, go, node_cluster, prometheus)"


def test_chromium_is_looked_up_on_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    ok, reason = check(["chromium"])
    assert not ok and reason == "chromium: no chromium on PATH (make system-tools installs it)"
    exe = tmp_path / "chromium"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    assert check(["chromium"]) == (True, "")


def test_first_unmet_requirement_is_reported(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    ok, reason = check(["chromium", "gpu"])
    assert not ok and reason.startswith("chromium:")


def test_local_cgroup_matches_the_backend_check():
    from throttlelab.experiment.local_cgroup.local_backend import local_backend_available

    ok, why = local_backend_available()
    assert check(["local_cgroup"]) == ((True, "") if ok else (False, f"local_cgroup: {why}"))


def test_a_prometheus_run_needs_its_url_among_its_parameters():
    """studies/cluster.yaml reads the reader's own Prometheus: without one it is skipped, saying how to give it."""
    ok, reason = check(["prometheus"], {"namespace": ""})
    assert not ok and reason == "prometheus: no Prometheus given: run it with -p prometheus_url http://HOST:9090"
    assert check(["prometheus"]) == (False, reason)
    assert check(["prometheus"], {"prometheus_url": "http://127.0.0.1:9090"}) == (True, "")
