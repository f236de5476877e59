"""Notebook 01_run_sweep: runs the tiny default sweep on real cgroups, then resumes with nothing to do."""

from __future__ import annotations

import json

import pytest

from tests.notebooks.results_schemas import validate


@pytest.mark.cgroup
@pytest.mark.slow
def test_runs_and_resumes(run_notebook, tmp_path):
    from throttlelab.experiment.local_cgroup.local_backend import local_backend_available

    ok, reason = local_backend_available()
    if not ok:
        pytest.skip(f"no writable CPU cgroup here: {reason}")
    raw = tmp_path / "raw"
    out, results = run_notebook("01_run_sweep", data_root=str(raw))
    r = results["results"]
    assert r["experiment"] == "tiny_burner"
    assert r["planned_runs"] == r["stored_runs"] == 4
    assert r["status_counts"] == {"ok": 4}
    assert r["skipped_reason"] is None and r["example_run"].startswith("l500m")
    by_limit = {row["limit"]: row for row in r["summary"]}
    assert by_limit["0.5"]["throttled_ratio"] > 0.3
    assert by_limit["unlimited"]["throttled_ratio"] is None or by_limit["unlimited"]["throttled_ratio"] == 0
    assert set(results["tables"]) == {"runs", "summary", "example_intervals"}
    assert (out / "headlines.json").exists()
    # resume: nothing left to run, same rows
    _, again = run_notebook("01_run_sweep", data_root=str(raw), inline={"replicates": 2})
    assert again["results"]["stored_runs"] == 4


def test_shows_stored_runs_without_running(run_notebook, tmp_path):
    _, results = run_notebook("01_run_sweep", data_root=str(tmp_path / "raw"), run=False)
    validate(results)
    r = results["results"]
    assert r["stored_runs"] == 0 and r["skipped_reason"] == "run=False" and r["example_run"] is None


def test_without_cgroups_it_says_why(run_notebook, tmp_path, monkeypatch):
    not_a_cgroup = tmp_path / "not_a_cgroup"
    not_a_cgroup.mkdir()
    monkeypatch.setenv("THROTTLELAB_CGROUP_ROOT", str(not_a_cgroup))
    _, results = run_notebook("01_run_sweep", data_root=str(tmp_path / "raw"), spec="",
                              inline={"name": "inline", "limits": [1], "threads": [1]})
    r = results["results"]
    assert r["experiment"] == "inline" and r["planned_runs"] == 1 and r["stored_runs"] == 0
    assert "not a cgroup folder" in r["skipped_reason"] and "root" in r["skipped_reason"]


def test_adaptive_sweep_on_the_simulated_backend(run_notebook, tmp_path):
    inline = {"name": "adaptive_sim", "backend": "simulated", "simulated": {"parallelism": 1.5, "seed": 3},
              "limits": [0.5, 1, 2, "unlimited"], "threads": [1, 2], "replicates": 3, "design": "adaptive"}
    out, results = run_notebook("01_run_sweep", data_root=str(tmp_path / "raw"), spec="", inline=inline)
    validate(results)
    r = results["results"]
    assert r["design"] == "adaptive" and r["planned_runs"] == 20  # the default budget: 80% of the 24-run grid
    assert 8 <= r["stored_runs"] <= 20 and r["stop_reason"]
    kinds = {d["decision"] for d in r["decisions"]}
    assert kinds == {"knee", "dead zone", "best threads"}
    assert all(0 <= d["confidence"] <= 1 and d["state"] in ("decided", "open") for d in r["decisions"])
    assert {"decisions", "run_order"} <= set(results["tables"])
    import polars as pl

    order = pl.read_csv(out / "run_order.csv")
    assert order["step"].to_list() == list(range(1, order.height + 1))
    assert order["chosen_because"][0].startswith("initial design")
    headlines = (out / "headlines.json").read_text()
    assert "knee at" in headlines and "decisions still open" in headlines
    answer = json.loads((out / "answer.json").read_text())  # the decisions are the answer, first
    assert answer["answer"].startswith("knee: ") and "sure" in answer["answer"]
    assert "runs chosen adaptively" in answer["rests_on"] and "per cell" in answer["rests_on"]
    shown = (out.parent / "01_run_sweep.out.ipynb").read_text()  # what the report renders
    assert "Runs in the order chosen" in shown and "Decisions" in shown
    for leak in ("shape: (", "dtype row", "&lt;polars"):  # raw DataFrame reprs (the decisions and run order were)
        assert leak not in shown, leak
