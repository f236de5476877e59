"""The published-data study: every notebook runs on the bundled data and every
report (and the index) renders in headless Chromium on a 1280x800 screen with
every chart drawn, the decision box first and visible, no leaked repr
(``shape:``, ``PosixPath(``, ``object at 0x``, dtype rows), no console error
and no network request."""

import json
from pathlib import Path

import pytest

from throttlelab.report.html.browser import check_pages, chromium_path
from throttlelab.report.study.study_runner import run_study
from throttlelab.report.study.study_file import load_study

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
        run = json.loads((o.folder / "run.json").read_text())
        assert run["headlines"], f"{o.name}: no headline for the index"
        assert run["answer"] and run["rests_on"], f"{o.name}: no answer (tn.answer) for the decision box"


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
    answers = {o.name: json.loads((o.folder / "run.json").read_text())["answer"] for o in outcome.outcomes}
    for check in check_pages(pages):
        assert check.charts > 0 or check.url.endswith("index.html"), check.url
        assert check.ok, (check.url, check.problems)
        if check.url.endswith("index.html"):
            continue
        assert not check.answer_problems, (check.url, check.answer_problems)
        assert any(c.isdigit() for c in check.answer_text), f"{check.url}: the answer has no number"
    import html as html_lib
    import re

    index_text = html_lib.unescape(re.sub(r"</?code>", "", html))
    for name, answer in answers.items():
        assert answer.replace("`", "") in index_text, f"the index lists the answer of {name}"


@pytest.mark.slow
def test_no_python_repr_or_emoji_in_any_report(published):
    import re

    reports, outcome = published
    for o in outcome.outcomes:
        text = (o.folder / "report.html").read_text()
        body = re.sub(r"<script.*?</script>", "", text, flags=re.S)
        for leak in ("shape: (", "PosixPath(", "object at 0x", "&lt;polars", "dtype: "):
            assert leak not in body, f"{o.name}: {leak}"
        assert not re.search(r"[\U0001F300-\U0001FAFF\u2600-\u27BF]", body), f"{o.name}: emoji"


@pytest.mark.slow
def test_every_lead_and_page_is_for_users(published):
    """Leads of at most 40 plain words; no developer note, Setup section, numbered heading or empty section."""
    from tests.report.html.test_user_text import check_reports

    _, outcome = published
    assert check_reports(outcome) == []
