"""What a user must not read: developer notes, Setup sections, numbered headings, empty sections; and the
leads of every report of the default study (which includes the published one) within 40 plain words."""

import json
from pathlib import Path

import pytest

from throttlelab.report.answers.answer_text import lead_problems
from throttlelab.report.html.user_text import page_problems, visible_text

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("html, problem", [
    ("<h2>Noise per limit (issue 12)</h2><p>x</p>", "developer note: issue 12"),
    ("<p>coverage 88% (<code>bench/bench_stats.py</code>)</p>", "developer note: bench/bench_stats.py"),
    ("<p>the earlier plain t-test did not, and was too liberal</p>", "developer note: the earlier"),
    ("<p><strong>Change to the published headline:</strong> pooled</p>",
     "developer note: Change to the published headline"),
    ("<p>see 03_cpu_limits on this run store</p>", "developer note: 03_cpu_limits"),
    ("<h1>04 · Thread counts</h1><p>x</p>", "a notebook number in a heading: 04 · Thread counts"),
    ("<h2>Setup</h2><p>Imports, the output folder</p>", "a Setup section"),
    ("<h2>Headlines and results</h2>", "empty section: Headlines and results"),
    ("<h2>Active time</h2><p>What the chart shows: the share</p><h2>Next</h2><p>x</p>",
     "a chart caption with no chart: What the chart shows: the share"),
    ("<p><em>Not run: no measured requests.</em></p>", "a 'Not run' line outside the collapsed list: Not run: no "
                                                       "measured requests."),
])
def test_each_kind_of_note_is_found(html, problem):
    assert problem in page_problems(html)


def test_a_page_for_users_has_no_problem():
    html = ("<script>var h = '<h2>issue 12</h2>'</script><style>h2 {}</style>"
            "<header><h1>CPU limits</h1><details><summary>Provenance</summary><table><tr><td>notebooks/"
            "03_cpu_limits.ipynb</td></tr></table></details></header>"
            "<h2>Scaling</h2><h3>Curves</h3><p>What the chart shows: time.</p><div class='tl-chart'></div>"
            "<details class='tl-not-run'><summary>Not run here: 2 parts of this report</summary><ul><li>no "
            "requests</li></ul></details><h2>Dead zones</h2><table></table>")
    assert page_problems(html) == []
    assert "03_cpu_limits" not in visible_text(html) and "issue 12" not in visible_text(html)


@pytest.fixture(scope="module")
def default_reports(tmp_path_factory):
    """Every report of the default study that the published study does not hold (the published study's own test
    runs those, with the same checks)."""
    from throttlelab.report.study.study_file import load_study
    from throttlelab.report.study.study_runner import run_study

    published = {r.name for r in load_study(REPO / "studies" / "published.yaml").runs}
    study = load_study(REPO / "studies" / "default.yaml")
    reports = tmp_path_factory.mktemp("default")
    return run_study(study.select([r.name for r in study.runs if r.name not in published]), reports, jobs=2)


def check_reports(outcome) -> list[str]:
    """Lead and page problems of every report of a finished study (also used by the published study's test)."""
    bad = []
    for o in outcome.outcomes:
        run = json.loads((o.folder / "run.json").read_text())
        bad += [f"{o.name} lead: {p}" for p in lead_problems(run.get("answer"))]
        if (o.folder / "report.html").exists():
            bad += [f"{o.name}: {p}" for p in page_problems((o.folder / "report.html").read_text())]
    index = outcome.index.read_text()
    bad += [f"index: {p}" for p in page_problems(index)]
    return bad


@pytest.mark.slow
def test_every_report_of_the_default_study_is_for_users(default_reports):
    assert check_reports(default_reports) == []
