"""Tests of throttlelab.report.study_cli: ``throttlelab run`` prints the index, skips and failures."""

from __future__ import annotations

from pathlib import Path

from throttlelab.cli import main

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "notebooks" / "study.yaml"


def test_only_a_skipped_run_exits_zero_and_says_why(tmp_path, capsys):
    assert main(["run", str(FIXTURE), "--reports", str(tmp_path), "--only", "needs-nothing-known"]) == 0
    out = capsys.readouterr().out
    assert f"index: {(tmp_path / 'index.html').resolve()}" in out
    assert "skipped needs-nothing-known: unknown requirement 'no_such_thing'" in out
    assert "0 report(s) in" in out


def test_a_failing_run_exits_one_and_names_it(tmp_path, capsys):
    assert main(["run", str(FIXTURE), "--reports", str(tmp_path), "--only", "bad", "-j", "1"]) == 1
    assert "FAILED (1 of 1): bad" in capsys.readouterr().err
    assert (tmp_path / "fixture" / "bad" / "report.html").exists()
