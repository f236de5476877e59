"""cAdvisor counters of a run pod through a real Prometheus (Debian package), with series backfilled
by promtool the way the kubelet's /metrics/cadvisor names them."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import urllib.request

import pytest

from throttlelab.experiment.kubernetes.cadvisor import agreement, pod_counters, prometheus_url

T0 = int(time.time()) - 3 * 3600  # inside the default retention, outside the head block


def test_agreement_compares_ratios():
    assert agreement({"nr_periods": 100, "nr_throttled": 90}, {"nr_periods": 80, "nr_throttled": 70}) == {
        "cgroup_ratio": 0.9, "cadvisor_ratio": 0.875, "difference": -0.025}
    assert agreement({"nr_periods": 0, "nr_throttled": 0}, {})["cgroup_ratio"] == 0.0
    assert agreement({}, {})["difference"] is None


def test_prometheus_url_option_then_environment(monkeypatch):
    monkeypatch.setenv("PROMETHEUS", "http://127.0.0.1:1")
    assert prometheus_url("http://x:9") == "http://x:9"
    assert prometheus_url(None) == "http://127.0.0.1:1"
    monkeypatch.delenv("PROMETHEUS")
    assert prometheus_url(None) is None


def _openmetrics() -> str:
    """Two containers of two pods; 20 samples 2 s apart; the run pod's counters grow, the other's too."""
    lines = []
    fams = {"container_cpu_cfs_periods": 10, "container_cpu_cfs_throttled_periods": 9,
            "container_cpu_cfs_throttled_seconds": 0.5, "container_cpu_usage_seconds": 0.1}
    for fam, step in fams.items():
        lines.append(f"# TYPE {fam} counter")
        for pod, factor in (("run-a", 1), ("run-b", 3)):
            for i in range(20):
                v = step * factor * i
                lines.append(f'{fam}_total{{namespace="throttlelab",pod="{pod}",container="workload"}} {v} {T0 + 2 * i}')
    lines.append("# EOF")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory):
    if not shutil.which("prometheus") or not shutil.which("promtool"):
        pytest.skip("no prometheus/promtool (make node-tools installs Debian's prometheus)")
    d = tmp_path_factory.mktemp("prom")
    (d / "series.om").write_text(_openmetrics())
    subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics", str(d / "series.om"), str(d / "data")],
                   check=True, capture_output=True)
    (d / "prometheus.yml").write_text("global: {}\n")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["prometheus", f"--config.file={d / 'prometheus.yml'}", f"--storage.tsdb.path={d / 'data'}",
                             f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"{url}/-/ready", timeout=1) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        assert time.monotonic() < deadline, "prometheus did not start"
        time.sleep(0.2)
    yield url
    proc.terminate()
    proc.wait(timeout=10)


def test_pod_counters_are_each_counters_maximum_over_the_run(prometheus):
    got = pod_counters(prometheus, "throttlelab", "run-a", "workload", T0, T0 + 38)
    assert got == {"nr_periods": 190, "nr_throttled": 171, "throttled_seconds": pytest.approx(9.5),
                   "cpu_seconds": pytest.approx(1.9)}
    # a window ending earlier sees less; another pod is not mixed in
    assert pod_counters(prometheus, "throttlelab", "run-a", "workload", T0, T0 + 10)["nr_periods"] == 50
    assert pod_counters(prometheus, "throttlelab", "run-b", "workload", T0, T0 + 38)["nr_periods"] == 570


def test_a_pod_prometheus_never_saw_gives_none(prometheus):
    got = pod_counters(prometheus, "throttlelab", "nope", "workload", T0, T0 + 38)
    assert got == {"nr_periods": None, "nr_throttled": None, "throttled_seconds": None, "cpu_seconds": None}
