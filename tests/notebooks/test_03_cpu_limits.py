"""Notebook 03 on the published ffmpeg sweep and on the runs fixture (a local-sweep-shaped table)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.notebooks.results_schemas import validate

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "thread_sweep.csv"


def test_03_on_published_data(run_notebook):
    out, results = run_notebook("03_cpu_limits", n_boot=20, n_sim=4000)
    validate(results)
    [g] = results["results"]["groups"]
    assert g["dead_zones_primary"] == "dead_zones_with_block"  # two experiments: experiment is a block
    [zone] = g["dead_zones_with_block"]["zones"]
    assert 6.0 in zone["limits_cores"] and zone["slowdown"]["p_value"] < 0.05 and zone["baseline_label"] == "4000m"
    verdicts = {t["limit_label"]: t["verdict"] for t in g["dead_zones_with_block"]["limits"]}
    assert verdicts["16000m"] != "dead zone" and verdicts["5000m"] == "undecided"
    assert "max-T" in g["dead_zones"]["procedure"]
    rec = g["recommendation"]
    assert rec["limit_label"] == "12000m" and 0.3 < rec["probability_knee"]["12000m"] < 0.95
    assert rec["limit_range"][0] == "12000m" and abs(sum(rec["probability_knee"].values()) - 1) < 1e-9
    assert any("at its lower bound" in w for f in g["fits"] for w in f["warnings"])
    slowdown = results["results"]["active_time"]["slowdown_factor"]
    assert slowdown["value"] > 7 and slowdown["low"] < slowdown["value"] < slowdown["high"]
    assert {"fits", "dead_zones", "limits", "recommendations", "active_time"} <= set(results["tables"])
    assert len(json.loads((out / "headlines.json").read_text())) >= 2


def test_03_on_a_runs_table_with_threads(run_notebook):
    out, results = run_notebook("03_cpu_limits", runs_path=str(FIXTURE), n_boot=10, n_sim=2000,
                              active_time_path="none")
    validate(results)
    r = results["results"]
    assert r["runs"]["excluded_by_reason"] == {"status failed": 1, "warm-up run": 1}
    assert len(r["groups"]) == 5  # threads 1, 2, 4, 8, auto
    assert r["active_time"] is None
    assert all(len(g["fits"]) == 3 or g["fit_note"] for g in r["groups"])
    doc = json.loads((out / "answer.json").read_text())  # built from the first group: it says so
    assert doc["answer"].startswith("Give ") and "ffmpeg with 1 thread" in doc["answer"]
    assert "in 5 groups; the answer covers ffmpeg with 1 thread, 1 of 5" in doc["rests_on"]


def _one_limit(tmp_path, one_run: bool = False, limits=(2.0,)):
    import polars as pl

    runs = pl.read_csv(FIXTURE).filter(pl.col("cpu_limit_cores").is_in(list(limits)), pl.col("threads") == "2")
    if one_run:
        runs = runs.filter(pl.col("replicate") == 1)
    path = tmp_path / "runs.csv"
    runs.write_csv(path)
    return str(path)


def test_03_with_one_limit_recommends_nothing_and_says_what_would_decide(run_notebook, tmp_path):
    """One limit (3 runs) and one limit (1 run): nothing to compare, so no 'give', and no interval from a prior."""
    for one_run in (False, True):
        out, results = run_notebook("03_cpu_limits", runs_path=_one_limit(tmp_path, one_run), n_boot=10, n_sim=2000,
                                    active_time_path="none")
        validate(results)
        [g] = results["results"]["groups"]
        rec = g["recommendation"]
        assert rec["undecided"].startswith("one limit measured (2000m): nothing to compare it with")
        answer = json.loads((out / "answer.json").read_text())["answer"]
        assert answer.startswith("Not yet clear which limit to give") and "Give " not in answer
        assert "Runs at two or more limits" in answer and "CI" not in answer
        if one_run:
            assert rec["expected_seconds"]["low"] is None and "unmeasured" in rec["expected_seconds"]["method"]
        heads = (out / "headlines.json").read_text()
        assert "give 2000m" not in heads


def test_03_with_one_run_per_limit_names_the_knee_as_not_decided(run_notebook, tmp_path):
    out, results = run_notebook("03_cpu_limits", runs_path=_one_limit(tmp_path, True, (1.0, 2.0, 4.0, 6.0)),
                                n_boot=10, n_sim=2000, active_time_path="none")
    validate(results)
    [g] = results["results"]["groups"]
    assert g["recommendation"]["undecided"].startswith("one run per limit: run-to-run noise unmeasured")
    assert g["recommendation"]["expected_seconds"]["low"] is None
    answer = json.loads((out / "answer.json").read_text())["answer"]
    assert answer.startswith("Not yet clear which limit to give") and "one run per limit" in answer
    assert "3 runs per limit would decide" in answer and "CI" not in answer


def test_03_on_a_zero_noise_metric_says_exact_instead_of_zero_width_intervals(run_notebook):
    """cpu_seconds of the fixture is identical in every replicate: the reason says so, no interval is given."""
    out, results = run_notebook("03_cpu_limits", runs_path=str(FIXTURE), metric="cpu_seconds", n_boot=10,
                                n_sim=2000, active_time_path="none")
    validate(results)
    for g in results["results"]["groups"]:
        dz = g["dead_zones"]
        assert "run-to-run noise is zero" in dz["reason"] and dz["monotone_p_value"] is None
        assert all(t["slowdown"] is None or (t["slowdown"]["low"] is None and t["slowdown"]["p_value"] is None)
                   for t in dz["limits"])
        assert any(t["slowdown"] is not None for t in dz["limits"])
    heads = (out / "headlines.json").read_text()
    assert "exact: zero run-to-run noise" in heads and "CI" not in heads.split("Go endpoint")[0]
