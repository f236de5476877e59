"""The report tables of an adaptive sweep: runs in the order chosen, and the decisions."""

from __future__ import annotations

import datetime as dt

import polars as pl

from throttlelab.experiment.sweeps.adaptive.adaptive import AdaptiveDesign
from throttlelab.experiment.sweeps.adaptive.adaptive_tables import answer_sentences, decisions_table, run_order_table
from throttlelab.experiment.registry import get_backend
from throttlelab.experiment.sweeps.run_sweep import run_sweep
from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping

SIM = {"parallelism": 1.5, "knee_sharpness": 8, "noise_cv": 0.05, "seed": 3}


def test_run_order_follows_start_times_and_names_full_grid_runs():
    t0 = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    runs = pl.DataFrame({"started_at": [t0 + dt.timedelta(seconds=s) for s in (3, 1, 2)],
                         "cpu_limit_cores": [None, 0.5, 1.0], "threads": ["2", "2", "1"], "contention": [0.0] * 3,
                         "replicate": [0, 0, 1], "status": ["ok"] * 3, "wall_seconds": [1.0, 2.5, 1.8],
                         "warmup": [False] * 3, "chosen_because": ["c", "a", None]})
    t = run_order_table(runs)
    assert t["step"].to_list() == [1, 2, 3]
    assert t["limit"].to_list() == ["0.5", "1.0", "unlimited"]
    assert t["chosen_because"].to_list() == ["a", "full grid", "c"]


def test_decisions_table_of_a_simulated_sweep(tmp_path):
    spec = spec_from_mapping({"name": "tables", "backend": "simulated", "simulated": SIM, "limits": [0.5, 1, 2],
                              "threads": [1, 2], "replicates": 2, "design": "adaptive", "data_root": str(tmp_path)})
    runs = run_sweep(spec, get_backend(spec.backend), progress=False)
    t = decisions_table(AdaptiveDesign(spec, runs).status())
    assert t.height > 0 and set(t["state"]) <= {"decided", "open"}
    assert "knee" in t["decision"].to_list()
    assert t.filter(pl.col("decision") == "knee")["limit"].to_list() == [""]
    assert ((t["confidence"] >= 0) & (t["confidence"] <= 1)).all()


def test_answer_sentences_put_the_decisions_first(tmp_path):
    spec = spec_from_mapping({"name": "answer", "backend": "simulated", "simulated": SIM, "limits": [0.5, 1, 2],
                              "threads": [1, 2], "replicates": 2, "design": "adaptive", "data_root": str(tmp_path)})
    runs = run_sweep(spec, get_backend(spec.backend), progress=False)
    status = AdaptiveDesign(spec, runs).status()
    text, rests_on = answer_sentences(status, runs)
    assert text.startswith("knee: ") and " cores (" in text and "sure" in text
    assert "threads at 0.5: " in text and text.endswith(f"All right together: {status.joint:.0%}.")
    assert ("dead zone at" in text) != ("no dead zone (least sure: at " in text)
    assert rests_on.startswith(f"{runs.height} runs chosen adaptively (") and f"{status.budget}-run budget" in rests_on
