"""Tests of throttlelab.report.index_cli: ``throttlelab index`` rebuilds the index from disk."""

from __future__ import annotations

import json

from throttlelab.cli import main


def test_index_command_writes_and_prints_the_index(tmp_path, capsys):
    run = tmp_path / "s" / "r"
    run.mkdir(parents=True)
    (run / "run.json").write_text(json.dumps({"name": "r", "status": "ok", "headlines": ["limit 4 cores"]}))
    assert main(["index", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == str((tmp_path / "index.html").resolve())
    assert "<li>limit 4 cores</li>" in (tmp_path / "index.html").read_text()


def test_index_of_a_missing_folder_is_refused(tmp_path, capsys):
    assert main(["index", str(tmp_path / "new")]) == 2
    assert "new" in capsys.readouterr().err and not (tmp_path / "new").exists()
