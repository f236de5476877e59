"""Run the fixture study end to end: reports, index, failure handling, escaping."""

import json
from pathlib import Path

import pytest

from throttlelab.cli import main
from throttlelab.report.html.browser import check_page, chromium_path

REPO = Path(__file__).resolve().parents[3]
FIXTURE = REPO / "tests" / "fixtures" / "notebooks" / "study.yaml"


@pytest.fixture(scope="module")
def fixture_reports(tmp_path_factory):
    reports = tmp_path_factory.mktemp("reports")
    rc = main(["run", str(FIXTURE), "--reports", str(reports)])
    return reports, rc


def test_exit_status_names_the_failure(fixture_reports, capsys):
    _, rc = fixture_reports
    assert rc == 1


def test_good_run_writes_everything(fixture_reports):
    reports, _ = fixture_reports
    good = reports / "fixture" / "good"
    for name in ("notebook.ipynb", "report.html", "results.json", "run.json", "table.csv", "table.parquet"):
        assert (good / name).exists(), name
    run = json.loads((good / "run.json").read_text())
    assert run["status"] == "ok"
    assert run["provenance"]["git_commit"]
    assert run["provenance"]["machine"]["kernel"]
    assert run["provenance"]["machine"]["cgroup"]
    assert run["provenance"]["packages"]["polars"]
    # what the notebook read, with its checksum; not every bundled table
    from throttlelab.report.study.provenance import sha256

    mediamtx = "data/published/mediamtx_optimization.csv"
    assert run["provenance"]["inputs"] == {mediamtx: sha256(REPO / mediamtx)}
    assert json.loads((good / "inputs_read.json").read_text())["inputs"] == [str(REPO / mediamtx)]
    assert run["section"] == "runs", "a study without a section is one of the reader's own"
    results = json.loads((good / "results.json").read_text())
    assert results["result_class"] == "Estimate" and results["results"]["value"] == 2.0
    import sys

    assert results["kernel_python"] == sys.executable, "the notebook ran in the project's interpreter"


def test_failed_run_still_has_a_report_showing_the_error(fixture_reports):
    reports, _ = fixture_reports
    bad = reports / "fixture" / "bad"
    run = json.loads((bad / "run.json").read_text())
    assert run["status"] == "failed"
    assert "fixture failure as asked" in run["error"]
    html = (bad / "report.html").read_text()
    assert "fixture failure as asked" in html


def test_skipped_run_says_why_in_the_index(fixture_reports):
    reports, _ = fixture_reports
    index = (reports / "index.html").read_text()
    assert "no_such_thing" in index
    assert "skipped" in index


def test_untrusted_strings_are_escaped(fixture_reports):
    reports, _ = fixture_reports
    index = (reports / "index.html").read_text()
    assert "<script>window.__pwned" not in index
    assert "&lt;b&gt;with markup" in index
    html = (reports / "fixture" / "good" / "report.html").read_text()
    assert "<script>window.__pwned" not in html


def test_reports_have_no_external_loads(fixture_reports):
    reports, _ = fixture_reports
    html = (reports / "fixture" / "good" / "report.html").read_text()
    for needle in ("cdn.jsdelivr", "cdnjs", "unpkg.com", "require.min.js", "mathjax", "<link rel=\"stylesheet\" href=\"http"):
        assert needle not in html.lower(), needle
    assert html.count("window.vegaEmbed=") == 1, "one vega bundle per page"


@pytest.mark.browser
@pytest.mark.skipif(chromium_path() is None, reason="chromium not installed (make system-tools installs it)")
def test_report_renders_offline_in_chromium(fixture_reports, tmp_path):
    reports, _ = fixture_reports
    check = check_page(reports / "fixture" / "good" / "report.html", screenshot=tmp_path / "good.png",
                       expression="window.__pwned || null")
    assert check.charts == 2
    assert check.drawn == 2, check
    assert check.console_errors == ()
    assert check.network_requests == ()
    assert check.extra["value"] is None, "an untrusted string ran as script"
    assert (tmp_path / "good.png").stat().st_size > 1000
    index = check_page(reports / "index.html")
    assert index.ok, index


def test_progress_bar_shows_elapsed_and_time_left_and_one_line_per_notebook():
    import io

    from throttlelab.report.study.study_runner import _ProgressBar

    log = io.StringIO()
    bar = _ProgressBar(2, "published", log, enabled=True)
    bar.write("[1/2] ok      published/a  3 s  the answer")
    bar.update()
    bar.close()
    text = log.getvalue()
    assert "published: 1/2 notebooks" in text and "elapsed" in text and "left" in text
    assert "[1/2] ok      published/a  3 s  the answer\n" in text


def test_run_prints_no_kernel_warning_and_one_line_per_notebook(fixture_reports, capfd):
    """The fixture study ran in the module fixture; run it again quietly and look at the terminal output."""
    import io

    from throttlelab.report.study.study_runner import run_study
    from throttlelab.report.study.study_file import load_study

    reports, _ = fixture_reports
    log = io.StringIO()
    run_study(load_study(FIXTURE).select(["good"]), reports, log=log, progress=False)
    captured = capfd.readouterr()
    assert "IPKernelApp" not in captured.err + captured.out + log.getvalue()
    lines = [ln for ln in log.getvalue().splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("[1/1] ok") and "fixture/good" in lines[0]


def test_a_report_that_cannot_be_exported_is_a_failed_run_with_a_page_saying_why(tmp_path, monkeypatch):
    from throttlelab.report.html import html_export
    from throttlelab.report.study import study_runner
    from throttlelab.report.study.study_file import load_study

    study = load_study(FIXTURE)
    good = next(r for r in study.runs if r.name == "good")

    def broken_export(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(html_export, "export_html", broken_export)
    out = study_runner.run_one(good, study, tmp_path / "good", {})
    assert out.status == "failed" and out.error == "HTML export failed: OSError: disk full"
    assert out.kernel_start_seconds is not None  # the notebook itself ran
    run = json.loads((tmp_path / "good" / "run.json").read_text())
    assert run["status"] == "failed" and run["error"] == out.error
    assert "disk full" in (tmp_path / "good" / "report.html").read_text()


def test_the_cluster_study_without_a_prometheus_is_skipped_saying_how(tmp_path):
    reports = tmp_path / "reports"
    assert main(["run", str(REPO / "studies" / "cluster.yaml"), "--reports", str(reports)]) == 0
    run = json.loads((reports / "cluster" / "recommend" / "run.json").read_text())
    assert run["status"] == "skipped" and run["section"] == "cluster"
    assert run["error"] == "prometheus: no Prometheus given: run it with -p prometheus_url http://HOST:9090"
    index = (reports / "index.html").read_text()
    assert index.index("Your cluster") < index.index("1 not run on this machine") < index.index("Your runs")


@pytest.mark.prometheus
@pytest.mark.slow
def test_the_cluster_study_reads_a_live_prometheus_into_your_cluster(tmp_path):
    """The bundled namespace served by a local Prometheus (loopback) stands in for the reader's own."""
    import gzip
    import shutil

    from throttlelab.ingest.prometheus.prometheus_local import LocalPrometheus, run_promtool, tsdb_time_range
    from throttlelab.report.study.provenance import LIVE

    if not (shutil.which("prometheus") and shutil.which("promtool")):
        pytest.skip("needs the Debian prometheus and promtool")
    plain, tsdb, reports = tmp_path / "export.om", tmp_path / "tsdb", tmp_path / "reports"
    plain.write_bytes(gzip.decompress((REPO / "data" / "published" / "samples" / "shop_namespace.om.gz").read_bytes()))
    run_promtool(plain, tsdb)
    _, last = tsdb_time_range(tsdb)
    with LocalPrometheus(tsdb) as prom:
        rc = main(["run", str(REPO / "studies" / "cluster.yaml"), "--reports", str(reports),
                   "-p", "prometheus_url", prom.url, "-p", "end", f"'{last:.0f}'"])
        url = prom.url
    assert rc == 0
    run = json.loads((reports / "cluster" / "recommend" / "run.json").read_text())
    assert run["status"] == "ok" and run["section"] == "cluster"
    assert run["answer"].startswith("Raise the CPU limit of starved-0/api") and f"({url})" in run["rests_on"]
    assert run["provenance"]["inputs"] == {url: LIVE}, "a live server: its URL, no checksum"
    index = (reports / "index.html").read_text()
    assert index.index("Your cluster") < index.index("cluster/recommend/report.html") < index.index("Your runs")
