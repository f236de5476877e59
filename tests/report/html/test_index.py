"""Tests of throttlelab.report.html.index: the reports index from the run folders on disk."""

from __future__ import annotations

import json

from throttlelab.report.html.index import by_section, read_runs, render_index, write_index


def run_json(reports, study, name, **doc):
    d = reports / study / name
    d.mkdir(parents=True)
    (d / "run.json").write_text(json.dumps({"name": name, **doc}))


def test_index_lists_runs_in_position_order_with_status(tmp_path):
    run_json(tmp_path, "demo", "b", position=2, status="ok", report="report.html", title="Second <b>",
             headlines=["4 cores beat 6"], seconds=12.34, study_title="Demo study")
    run_json(tmp_path, "demo", "a", position=1, status="skipped", error="no writable CPU cgroup", title="Sweep")
    run_json(tmp_path, "demo", "c", position=3, status="failed", error="cell 2 raised")
    (tmp_path / "demo" / "d").mkdir()
    (tmp_path / "demo" / "d" / "run.json").write_text("{not json")
    studies = read_runs(tmp_path)
    assert [r["name"] for r in studies["demo"]] == ["d", "a", "b", "c"]  # unreadable (no position) first
    assert studies["demo"][0]["error"] == "unreadable run.json"
    page = write_index(tmp_path).read_text()
    assert "<a href='demo/b/report.html'>Second &lt;b&gt;</a>" in page and "demo/b &middot;" in page
    assert "<summary>1 not run on this machine</summary><ul><li>Sweep: no writable CPU cgroup</li>" in page, \
        "runs not run are one collapsed line"
    assert "<p class='failed'>Failed: cell 2 raised</p>" in page
    assert "<li>4 cores beat 6</li>" in page and ", 12 s" in page
    assert page.index("demo/b/") < page.index(">c<")


def test_the_readers_own_results_come_first_then_the_examples(tmp_path):
    """Sections in this order whatever the studies' names: Your cluster, Your runs, Examples."""
    run_json(tmp_path, "default", "monitor-log", position=1, status="ok", report="report.html", section="examples",
             answer="Raise the limit.", rests_on="one sample log")
    run_json(tmp_path, "default", "local-sweep", position=10, status="ok", report="report.html", section="runs",
             answer="Give ffmpeg 1 core.", rests_on="36 runs")
    run_json(tmp_path, "cluster", "recommend", position=1, status="ok", report="report.html", section="cluster",
             answer="Raise 2 limits.", rests_on="6 containers")
    run_json(tmp_path, "old", "x", position=1, status="ok", report="report.html")  # no section: the reader's own
    sections = by_section(read_runs(tmp_path))
    assert list(sections) == ["cluster", "runs", "examples"]
    assert [r["name"] for r in sections["runs"]] == ["local-sweep", "x"]
    page = render_index(read_runs(tmp_path))
    headings = [page.index(h) for h in ("<h2 id='cluster'>Your cluster</h2>", "<h2 id='runs'>Your runs</h2>",
                                        "<h2 id='examples'>Examples</h2>")]
    assert headings == sorted(headings)
    assert headings[0] < page.index("cluster/recommend/") < headings[1] < page.index("default/local-sweep/") \
        < headings[2] < page.index("default/monitor-log/")
    for lead, basis in (("Raise 2 limits.", "6 containers"), ("Give ffmpeg 1 core.", "36 runs"),
                        ("Raise the limit.", "one sample log")):
        assert f"<strong>{lead}</strong>" in page and f"Rests on: {basis}" in page


def test_empty_sections_say_how_to_fill_them(tmp_path):
    run_json(tmp_path, "published", "contention", position=1, status="ok", report="report.html", section="examples",
             answer="Keep stress below 47%.")
    run_json(tmp_path, "default", "local-sweep", position=2, status="skipped", section="runs", error="no cgroup")
    page = render_index(read_runs(tmp_path))
    assert "throttlelab run studies/cluster.yaml -p prometheus_url http://HOST:9090" in page
    assert "No runs of your own yet" in page and "1 not run on this machine" in page
    assert "No answer recorded" not in page


def test_empty_index_says_how_to_make_reports(tmp_path):
    assert "run <code>make report</code>" in render_index(read_runs(tmp_path))
