"""``throttlelab sweep``."""

from __future__ import annotations

import pytest

from throttlelab.cli import main


def write(tmp_path, text):
    p = tmp_path / "s.yaml"
    p.write_text(text)
    return p


def test_dry_run_prints_plan(tmp_path, capsys):
    spec = write(tmp_path, "name: d\nlimits: [0.5, unlimited]\nthreads: [1]\nreplicates: 2\nwarmup: 1\n")
    assert main(["sweep", str(spec), "--dry-run", "--data-root", str(tmp_path / "raw")]) == 0
    out = capsys.readouterr().out
    assert "experiment d: 5 runs (0 done, 5 to do)" in out
    assert "(warm-up)" in out and "unlim" in out and "backend local:" in out
    assert not (tmp_path / "raw").exists()


def test_bad_spec_is_a_clean_error(tmp_path, capsys):
    spec = write(tmp_path, "name: d\nlimits: [lots]\n")
    assert main(["sweep", str(spec)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("throttlelab: error:") and "limits[0]" in err and "Traceback" not in err


@pytest.mark.cgroup
def test_sweep_runs_and_resumes(tmp_path, capsys, cgroup_layout):
    spec = write(tmp_path, "name: c\nworkload: {kind: burner, cpu_seconds: 0.05}\nlimits: [1]\nthreads: [1, 2]\n"
                           "sampling_interval_s: 0.1\n")
    args = ["sweep", str(spec), "--data-root", str(tmp_path / "raw"), "--no-progress"]
    assert main([*args, "--max-runs", "1"]) == 0
    assert "1/2 runs recorded" in capsys.readouterr().out
    assert main(args) == 0
    assert "2/2 runs recorded (2 ok)" in capsys.readouterr().out


def test_no_cgroup_is_a_clean_error_and_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("THROTTLELAB_CGROUP_ROOT", str(tmp_path))
    spec = write(tmp_path, "name: n\nlimits: [1]\n")
    assert main(["sweep", str(spec), "--data-root", str(tmp_path / "raw"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "not a cgroup folder" in err and "run as root" in err
    assert not (tmp_path / "raw").exists()
