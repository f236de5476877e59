"""``throttlelab recommend`` end to end: formats, the columns the issue lists, errors as one line with exit 2."""

from __future__ import annotations

import csv
import io
import json

import pytest

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
    assert rc == 0 and "shop/starved-0/api" in out and "raise limit" in out and "Why:" in out


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
    from throttlelab.report.browser import check_page, chromium_path

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
