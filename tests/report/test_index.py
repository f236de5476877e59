"""Tests of throttlelab.report.index: the reports index from the run folders on disk."""

from __future__ import annotations

import json

from throttlelab.report.index import read_runs, render_index, write_index


def run_json(reports, study, name, **doc):
    d = reports / study / name
    d.mkdir(parents=True)
    (d / "run.json").write_text(json.dumps({"name": name, **doc}))


def test_index_lists_runs_by_study_in_position_order_with_status(tmp_path):
    run_json(tmp_path, "demo", "b", position=2, status="ok", report="report.html", title="Second <b>",
             headlines=["4 cores beat 6"], seconds=12.34, study_title="Demo study")
    run_json(tmp_path, "demo", "a", position=1, status="skipped", error="no writable CPU cgroup")
    run_json(tmp_path, "demo", "c", position=3, status="failed", error="cell 2 raised")
    (tmp_path / "demo" / "d").mkdir()
    (tmp_path / "demo" / "d" / "run.json").write_text("{not json")
    studies = read_runs(tmp_path)
    assert [r["name"] for r in studies["demo"]] == ["d", "a", "b", "c"]  # unreadable (no position) first
    assert studies["demo"][0]["error"] == "unreadable run.json"
    page = write_index(tmp_path).read_text()
    assert "Demo study <span class='muted'>(demo)</span>" in page
    assert "<a href='demo/b/report.html'>Second &lt;b&gt;</a>" in page
    assert "Not run on this machine: no writable CPU cgroup" in page
    assert "<p class='failed'>Failed: cell 2 raised</p>" in page
    assert "<li>4 cores beat 6</li>" in page and ", 12 s" in page
    assert page.index("demo/b/") < page.index(">c<")


def test_empty_index_says_how_to_make_reports(tmp_path):
    assert "run <code>make report</code>" in render_index(read_runs(tmp_path))
