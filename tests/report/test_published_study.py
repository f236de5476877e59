"""The published-data study: every notebook runs on the bundled data and every
report (and the index) renders in headless Chromium with every chart drawn,
no console error and no network request."""

import json
from pathlib import Path

import pytest

from throttlelab.report.browser import check_pages, chromium_path
from throttlelab.report.study_runner import run_study
from throttlelab.report.study import load_study

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    reports = tmp_path_factory.mktemp("published")
    outcome = run_study(load_study(REPO / "studies" / "published.yaml"), reports, jobs=2)
    return reports, outcome


@pytest.mark.slow
def test_every_published_notebook_runs(published):
    reports, outcome = published
    assert outcome.ok, {o.name: o.error for o in outcome.outcomes if o.status != "ok"}
    for o in outcome.outcomes:
        results = json.loads((o.folder / "results.json").read_text())
        assert results["results"], o.name
        assert json.loads((o.folder / "run.json").read_text())["headlines"], f"{o.name}: no headline for the index"


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.skipif(chromium_path() is None, reason="chromium not installed (make system-tools installs it)")
def test_index_and_every_report_render_offline(published):
    reports, outcome = published
    index = reports / "index.html"
    html = index.read_text()
    pages = [index]
    for o in outcome.outcomes:
        assert f"{outcome.study}/{o.name}/report.html" in html, f"index links {o.name}"
        pages.append(o.folder / "report.html")
    for check in check_pages(pages):
        assert check.charts > 0 or check.url.endswith("index.html"), check.url
        assert check.ok, check
