"""``throttlelab recommend`` end to end: formats, the columns the issue lists, errors as one line with exit 2."""

from __future__ import annotations

import csv
import io
import json

import pytest
import yaml

from tests.conftest import SCENARIO_HOURS
from throttlelab.cli import main
from throttlelab.ingest.prometheus.prometheus_local import free_port

ISSUE_COLUMNS = {"namespace", "pod", "container", "current_request_cores", "current_limit_cores",
                 "recommended_request_cores", "recommended_limit_cores", "recommended_request_low",
                 "recommended_request_high", "recommended_limit_low", "recommended_limit_high", "throttled_ratio", "reason"}


def _run(capsys, *argv):
    rc = main(["recommend", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture(scope="module")
def live(prometheus_scenarios):
    url, _, end = prometheus_scenarios
    return ["--prometheus", url, "--namespace", "shop", "--since", f"{SCENARIO_HOURS}h", "--end", str(end)]


@pytest.mark.prometheus
def test_json_has_the_issue_columns_and_directions(capsys, live):
    rc, out, _ = _run(capsys, *live, "--format", "json")
    rows = {r["pod"]: r for r in json.loads(out)}
    assert rc == 0 and len(rows) == 6 and ISSUE_COLUMNS <= set(rows["starved-0"])
    assert rows["starved-0"]["recommended_limit_cores"] > 3 * rows["starved-0"]["current_limit_cores"]
    assert rows["oversized-0"]["recommended_limit_cores"] < rows["oversized-0"]["current_limit_cores"] / 4
    assert rows["wellsized-0"]["decision"] == "keep"


@pytest.mark.prometheus
def test_csv_table_and_policy_none(capsys, live):
    rc, out, _ = _run(capsys, *live, "--format", "csv", "--limit-policy", "none")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rc == 0 and ISSUE_COLUMNS <= set(rows[0]) and all(r["recommended_limit_cores"] == "" for r in rows)
    rc, out, _ = _run(capsys, *live)
    assert rc == 0 and "shop/StatefulSet/starved/api" in out and "raise limit" in out and "Why:" in out


@pytest.mark.prometheus
def test_selector_by_series_label(capsys, live):
    rc, out, _ = _run(capsys, *live, "--format", "json", "--selector", "container=web")
    assert rc == 0 and [r["pod"] for r in json.loads(out)] == ["wellsized-0"]


@pytest.mark.prometheus
def test_html_report_is_self_contained(capsys, live, tmp_path):
    dest = tmp_path / "rec.html"
    rc, _, err = _run(capsys, *live, "--format", "html", "-o", str(dest))
    page = dest.read_text()
    assert rc == 0 and "wrote" in err
    assert "Content-Security-Policy" in page and page.count("tl-chart") >= 12 and "http://cdn" not in page
    assert "starved-0" in page and "raise limit" in page


@pytest.mark.parametrize("argv, message", [
    (["--prometheus", "http://127.0.0.1:{port}"], "cannot reach Prometheus"),
    (["--prometheus", "http://127.0.0.1:{port}", "--throttle-target", "5"], "--throttle-target 5.0: expected a ratio"),
    (["--prometheus", "http://127.0.0.1:{port}", "--since", "two weeks"], "not a duration"),
])
def test_errors_are_one_line_and_exit_2(capsys, argv, message):
    port = free_port()
    rc, out, err = _run(capsys, *[a.format(port=port) for a in argv])
    assert rc == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.prometheus
def test_empty_match_is_one_line(capsys, live):
    rc, _, err = _run(capsys, *live[:2], "--namespace", "no-such-namespace")
    assert rc == 2 and "no container_cpu_usage_seconds_total series in namespace 'no-such-namespace'" in err
    assert err.count("\n") == 1


@pytest.mark.browser
def test_html_report_draws_offline_in_chromium(capsys, tmp_path):
    """The HTML report from the bundled export: every chart drawn, no console error, no network request."""
    from throttlelab.report.html.browser import check_page, chromium_path

    if not chromium_path():
        pytest.skip("no chromium")
    dest = tmp_path / "rec.html"
    sample = "data/published/samples/shop_namespace.om.gz"
    from pathlib import Path

    rc, _, _ = _run(capsys, "--openmetrics", str(Path(__file__).resolve().parents[2] / sample), "--format", "html",
                    "-o", str(dest), "--since", "26h")
    assert rc == 0
    check = check_page(dest, screenshot=tmp_path / "rec.png")
    assert check.charts == 11 and check.ok, check  # 6 distributions + 5 throttled-ratio charts (no-limit has none)


@pytest.mark.prometheus
def test_selector_by_pod_label_through_kube_pod_labels(capsys, live):
    """label_app is exported by kube-state-metrics on kube_pod_labels only: matching it needs the join."""
    rc, out, _ = _run(capsys, *live, "--format", "json", "--selector", "app=api")
    assert rc == 0 and [r["pod"] for r in json.loads(out)] == ["starved-0"]
    rc, _, err = _run(capsys, *live, "--format", "json", "--selector", "app=nothing-has-this")
    assert rc == 2 and "no container_cpu_usage_seconds_total series" in err


def test_the_header_states_the_window_observed_not_the_one_requested(capsys):
    from pathlib import Path

    sample = Path(__file__).resolve().parents[2] / "data" / "published" / "samples" / "shop_namespace.om.gz"
    rc, out, _ = _run(capsys, "--openmetrics", str(sample), "--read-directly", "--since", "14d")
    assert rc == 0 and "window 26.0 h observed (of 336.0 h requested) at 120-s steps" in out.splitlines()[0]
    rc, out, _ = _run(capsys, "--openmetrics", str(sample), "--read-directly")
    assert rc == 0 and "window 26.0 h observed at 120-s steps" in out.splitlines()[0]


WORKLOAD_FIELDS = ("namespace", "workload_kind", "workload", "container", "pods", "pod_hours")


@pytest.mark.prometheus
def test_a_cluster_gives_one_row_per_workload_container_in_every_format(capsys, prometheus_cluster, tmp_path):
    from tests.conftest import CLUSTER_HOURS

    url, _, end = prometheus_cluster
    live = ["--prometheus", url, "--since", f"{CLUSTER_HOURS}h", "--end", str(end)]
    rc, out, _ = _run(capsys, *live, "--format", "json")
    rows = json.loads(out)
    assert rc == 0 and len(rows) == 8 and all(set(WORKLOAD_FIELDS) <= set(r) for r in rows)
    keys = {(r["namespace"], r["workload_kind"], r["workload"], r["container"]): r for r in rows}
    assert keys[("shop", "Deployment", "web", "app")]["pods"] == 6
    rc, out, _ = _run(capsys, *live, "--format", "csv")
    csv_rows = list(csv.DictReader(io.StringIO(out)))
    assert [tuple(r[f] for f in WORKLOAD_FIELDS[:4]) for r in csv_rows] == [tuple(r[f] for f in WORKLOAD_FIELDS[:4])
                                                                           for r in rows]
    rc, out, _ = _run(capsys, *live)
    assert rc == 0 and out.startswith("8 workload containers") and "shop/CronJob/report/report:" in out
    head = " ".join(out.split("\n\n")[1].splitlines()[:2]).split()  # the table's two header lines
    assert {"workload", "container", "decision", "request", "limit", "now", "new"} <= set(head)
    dest = tmp_path / "rec.html"
    rc, _, _ = _run(capsys, *live, "--format", "html", "-o", str(dest))
    page = dest.read_text()
    assert rc == 0 and "<th>workload</th>" in page and "<th>pod-hours</th>" in page
    assert "shop/CronJob/report/report" in page and "36 pods (newest report-" in page


@pytest.mark.parametrize("argv, message", [
    (["--namespace", "nowhere"], "shop_namespace.om.gz: no container_cpu_usage_seconds_total samples (namespace "
                                 "'nowhere'; namespaces with containers: shop)"),
    (["--namespace", "nowhere", "--read-directly"], "(namespace 'nowhere'; namespaces with containers: shop)"),
    (["--namespace", ""], "--namespace '': expected a namespace name"),
])
def test_an_empty_namespace_exits_2_with_one_clear_line(capsys, argv, message):
    from pathlib import Path

    if "--read-directly" not in argv and argv[1]:
        from throttlelab.ingest.prometheus.prometheus_local import prometheus_available

        if not prometheus_available()[0]:
            pytest.skip(prometheus_available()[1])
    sample = Path(__file__).resolve().parents[2] / "data" / "published" / "samples" / "shop_namespace.om.gz"
    rc, out, err = _run(capsys, "--openmetrics", str(sample), *argv)
    assert rc == 2 and out == "" and message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.fixture(scope="module")
def bare_prometheus(tmp_path_factory):
    """A Prometheus holding 26 hours of the cluster as kube-prometheus-stack without kube-state-metrics keeps it:
    no owner, request or limit series, and no container_cpu_cfs_throttled_seconds_total."""
    from tests.conftest import SCENARIO_START
    from throttlelab.experiment.simulation.cluster_openmetrics import write_cluster
    from throttlelab.experiment.simulation.synthetic_cluster import cluster
    from throttlelab.ingest.prometheus.prometheus_local import LocalPrometheus, prometheus_available, run_promtool

    if not prometheus_available()[0]:
        pytest.skip(prometheus_available()[1])
    root = tmp_path_factory.mktemp("bare")
    write_cluster(root / "c.om", cluster(26, start=SCENARIO_START), start=SCENARIO_START, hours=26,
                  kube_state_metrics=False, throttled_seconds=False)
    run_promtool(root / "c.om", root / "tsdb")
    with LocalPrometheus(root / "tsdb") as prom:
        yield ["--prometheus", prom.url, "--since", "26h", "--end", str(SCENARIO_START + 26 * 3600)]


@pytest.mark.prometheus
def test_without_kube_state_metrics_or_throttled_seconds_workloads_are_inferred_and_it_is_said(capsys, bare_prometheus):
    rc, out, _ = _run(capsys, *bare_prometheus, "--min-history", "6h")
    head = out.split("\n\n", 1)[0].splitlines()
    assert rc == 0 and head[0].startswith("8 workload containers") and len(head) == 4  # said once each
    assert head[1].startswith("Workloads inferred from pod names without kube-state-metrics' kube_pod_owner")
    assert "shop/node-agent (DaemonSet or Job" in head[2] and "ops/migrate-schema (DaemonSet or Job" in head[2]
    assert head[3].startswith("container_cpu_cfs_throttled_seconds_total is missing for 8 workload containers")
    assert "kubelet.serviceMonitor.cAdvisorMetricRelabelings" in head[3]
    rc, out, err = _run(capsys, *bare_prometheus, "--min-history", "6h", "--format", "json")
    assert err.splitlines() == head[1:]  # JSON has no place for them: said on stderr, the same lines
    rows = {(r["workload_kind"], r["workload"], r["container"]): r for r in json.loads(out)}
    assert rows[("Deployment", "web", "app")]["pods"] == 6  # the same name in pods of three rollouts: one row
    assert rows[("CronJob", "report", "report")]["pods"] == 13
    assert rows[("Deployment", "web", "app")]["current_limit_cores"] == 0.8  # from cAdvisor's quota, latest pod
    assert all("throttled periods alone" in r["limit_basis"] for r in rows.values()
               if r["throttled_ratio"] and r["decision"] != "too little data")


@pytest.mark.prometheus
def test_the_patch_says_how_its_workloads_were_found(capsys, bare_prometheus):
    """Whoever applies a patch of an inferred workload reads that it was inferred (and which names stayed
    ambiguous) in the patch file itself; the documents are unchanged by the comments."""
    rc, table, _ = _run(capsys, *bare_prometheus, "--min-history", "6h")
    notes = table.split("\n\n", 1)[0].splitlines()[1:]
    rc, out, _ = _run(capsys, *bare_prometheus, "--min-history", "6h", "--format", "patch")
    comments = [line[2:] for line in out.split("---", 1)[0].splitlines() if line.startswith("# ")]
    assert rc == 0 and all(n in comments for n in notes) and len(notes) == 3, (notes, comments)
    docs = [d for d in yaml.safe_load_all(out) if d]
    assert {(d["kind"], d["metadata"]["name"]) for d in docs} >= {("Deployment", "web")}
