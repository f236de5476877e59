"""Adaptive sweeps end to end: simulated (fast), resumed from the store, and on real cgroups."""

from __future__ import annotations

import math
import random

import polars as pl
import pytest

from throttlelab import tables
from throttlelab.errors import SpecError
from throttlelab.experiment.sweeps.adaptive.adaptive import DEFAULT_BUDGET_SHARE, AdaptiveDesign
from throttlelab.experiment.sweeps.adaptive.adaptive_answers import acceptable_answers
from throttlelab.experiment.sweeps.adaptive.adaptive_decisions import cell_stats
from throttlelab.experiment.sweeps.adaptive.adaptive_model import initial_cells
from throttlelab.experiment.sweeps.run_store import RunStore
from throttlelab.experiment.simulation.simulated_backend import draw_seconds, true_seconds, truth_from_options
from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping
from throttlelab.experiment.registry import get_backend
from throttlelab.experiment.sweeps.run_sweep import pending_runs, run_sweep

SIM = {"parallelism": 1.5, "knee_sharpness": 8, "oversubscription_pct": 40, "noise_cv": 0.05, "outlier_rate": 0.03,
       "seed": 11}


def adaptive_spec(tmp_path, **kw):
    return spec_from_mapping({"name": "ad", "backend": "simulated", "simulated": SIM, "limits": [0.5, 1, 2, "unlimited"],
                              "threads": [1, 2, 4], "replicates": 3, "design": "adaptive", "seed": 2,
                              "data_root": str(tmp_path), **kw})


def test_simulated_adaptive_sweep_end_to_end(tmp_path):
    spec = adaptive_spec(tmp_path)
    df = run_sweep(spec, get_backend(spec.backend), progress=False)
    design = AdaptiveDesign(spec, df)
    assert tables.validate(df, "runs") == []
    assert design.budget == math.ceil(36 * DEFAULT_BUDGET_SHARE) and df.height <= design.budget  # of the 36-run grid
    reasons = df.sort("started_at")["chosen_because"].to_list()
    assert all(reasons)
    initial = sum(r.startswith("initial design") for r in reasons)
    half = initial_cells(design.layout)  # a connected half of the 12 cells, the model predicts the rest
    assert initial == len(half) and 6 <= initial <= 8
    assert all(r.startswith("initial design") for r in reasons[:initial])
    first = set(zip(df["cpu_limit_cores"][:initial], df["threads"][:initial]))
    assert first == {(lim, t) for _, lim, t in half}
    assert sum(r.startswith("value of one more run") for r in reasons) >= 6  # the rest chosen by their value
    status = design.status()
    assert status.finished and status.stop_reason
    truth_model = truth_from_options(SIM)
    truth = acceptable_answers({c: true_seconds(truth_model, c[1], c[2], c[0]) for c in design.layout.cells},
                               design.layout, spec.adaptive)
    right = [d.answer in truth[(d.kind, d.contention, d.limit)] for d in status.decisions]
    assert sum(right) >= len(right) - 1, [(d.subject, d.answer) for d in status.decisions]
    assert {d.subject for d in status.open} <= {d.subject for d in status.decisions}
    assert run_sweep(spec, get_backend(spec.backend), progress=False).height == df.height  # finished: nothing more to run


def test_a_generous_budget_stops_when_every_decision_is_sure(tmp_path):
    spec = adaptive_spec(tmp_path, adaptive={"budget": 200, "max_replicates": 20, "resolution_pct": 10},
                         simulated={**SIM, "noise_cv": 0.02, "outlier_rate": 0.0})
    df = run_sweep(spec, get_backend(spec.backend), progress=False)
    status = AdaptiveDesign(spec, df).status()
    assert df.height < 200 and not status.open, status.stop_reason
    assert "every decision" in status.stop_reason


def test_a_clear_sweep_stops_confident_before_its_budget_with_pivotal_cells_replicated(tmp_path):
    spec = adaptive_spec(tmp_path, adaptive={"budget": 36}, simulated={**SIM, "noise_cv": 0.02, "outlier_rate": 0.0})
    df = run_sweep(spec, get_backend(spec.backend), progress=False)
    design = AdaptiveDesign(spec, df)
    status = design.status()
    assert status.confident and status.joint >= 0.95 and not status.open, status.stop_reason
    assert df.height < 36 and status.stop_reason.startswith("confident: every decision right together")
    st = cell_stats(design.times, spec.adaptive)
    assert all(st[c].used >= 2 for d in status.decisions for c in d.pivotal)  # min_replicates on pivotal cells


def _sweep_in_memory(spec, sim) -> AdaptiveDesign:
    """Run an adaptive sweep of ``spec`` on the simulated truth ``sim`` without a run store."""
    design, truth = AdaptiveDesign(spec), truth_from_options(sim)
    while (step := design.next_run()) is not None:
        p = step[0]
        wall, _ = draw_seconds(truth, p.run_id, p.limit_cores, p.threads, p.contention.share)
        design.record({"run_id": p.run_id, "warmup": p.warmup, "contention": p.contention.share,
                       "cpu_limit_cores": p.limit_cores, "threads": p.threads, "status": "ok", "wall_seconds": wall})
    return design


@pytest.mark.slow
def test_sweeps_that_stop_confident_are_all_right_at_least_at_the_stated_confidence():
    """The stop rule's calibration: sweeps stopping on P(every decision right) >= 0.9 are all right >= 90 %.

    Realistic noise (t5 run-to-run noise 3-10 % growing with the limit, 3 % slow outlying runs), knees and
    thread-count sweet spots drawn at random; a budget of 1.5 grids so that most sweeps stop on confidence.
    The bound allows the Monte Carlo error of the count (two standard errors).
    """
    confident = right = runs = 0
    n = 24
    for i in range(n):
        rng = random.Random(i)
        sim = {"parallelism": rng.uniform(1.0, 3.0), "knee_sharpness": rng.uniform(3, 12),
               "oversubscription_pct": rng.uniform(0, 40), "noise_cv": rng.uniform(0.03, 0.1), "outlier_rate": 0.03,
               "seed": i}
        spec = adaptive_spec("/nonexistent", simulated=sim, seed=i,
                             adaptive={"confidence": 0.9, "budget": 54, "draws": 500})
        design = _sweep_in_memory(spec, sim)
        status = design.status()
        truth = acceptable_answers({c: true_seconds(truth_from_options(sim), c[1], c[2], c[0])
                                    for c in design.layout.cells}, design.layout, spec.adaptive)
        runs += status.runs_used
        if status.confident:
            confident += 1
            right += all(d.answer in truth[(d.kind, d.contention, d.limit)] for d in status.decisions)
    assert confident >= n // 2, confident
    assert runs < n * 54  # some stop before the budget
    assert right / confident >= 0.9 - 2 * math.sqrt(0.9 * 0.1 / confident), (right, confident)


def test_resume_from_the_store_continues_the_same_sequence(tmp_path):
    whole = adaptive_spec(tmp_path / "a")
    parts = adaptive_spec(tmp_path / "b")
    ref = run_sweep(whole, get_backend(whole.backend), progress=False).sort("started_at")
    first = run_sweep(parts, get_backend(parts.backend), progress=False, max_runs=7)
    assert first.height == 7
    assert 1 <= len(pending_runs(parts, RunStore(parts.experiment_dir))) <= 5  # the initial design's rest
    run_sweep(parts, get_backend(parts.backend), progress=False, max_runs=6)
    done = run_sweep(parts, get_backend(parts.backend), progress=False).sort("started_at")
    assert done["run_id"].to_list() == ref["run_id"].to_list()
    assert done["chosen_because"].to_list() == ref["chosen_because"].to_list()
    assert done["wall_seconds"].to_list() == ref["wall_seconds"].to_list()


def test_grid_rows_count_for_an_adaptive_sweep_of_the_same_spec(tmp_path):
    grid = adaptive_spec(tmp_path, design="grid", replicates=1)
    run_sweep(grid, get_backend(grid.backend), progress=False)
    spec = adaptive_spec(tmp_path)
    df = run_sweep(spec, get_backend(spec.backend), progress=False)
    assert df.filter(pl.col("chosen_because").is_null()).height == 12  # the grid's runs, reused
    assert not any(r.startswith("initial design") for r in df["chosen_because"].drop_nulls())


@pytest.mark.parametrize(("extra", "key"), [
    ({"design": "smart"}, "design"),
    ({"adaptive": {"confidence": 1.5}}, "adaptive.confidence"),
    ({"design": "adaptive", "adaptive": {"budget": 5}}, "adaptive.budget"),  # fewer runs than cells
    ({"adaptive": {"knee_tolerance": 10}}, "adaptive.knee_tolerance"),
    ({"adaptive": [1]}, "adaptive"),
])
def test_bad_adaptive_keys_name_file_and_key(tmp_path, extra, key):
    with pytest.raises(SpecError, match=rf"s\.yaml: key '{key}'"):
        spec_from_mapping({"name": "s", "limits": [0.5, 1, 2], "threads": [1, 2], **extra}, source="s.yaml")


def test_adaptive_spec_round_trips():
    spec = spec_from_mapping({"name": "s", "design": "adaptive", "adaptive": {"confidence": 0.9, "budget": 40}})
    again = spec_from_mapping(spec.to_mapping())
    assert again == spec and again.adaptive.confidence == 0.9
    assert "design" not in spec_from_mapping({"name": "s"}).to_mapping()  # grid specs unchanged


# -- real cgroups ---------------------------------------------------------------
@pytest.mark.cgroup
@pytest.mark.slow
def test_adaptive_sweep_on_the_local_cgroup_backend(cgroup_layout, tmp_path):
    """The tiny burner (studies/sweeps/tiny_burner.yaml) as an adaptive sweep on this machine's cgroups."""
    from throttlelab.experiment.sweeps.spec_loading import load_spec

    base = load_spec(__import__("pathlib").Path(__file__).parents[4] / "studies/sweeps/tiny_burner.yaml",
                     data_root=tmp_path)
    spec = spec_from_mapping({**base.to_mapping(), "design": "adaptive", "adaptive": {"budget": 5},
                              "workload": {"kind": "burner", "cpu_seconds": 0.2}, "data_root": str(tmp_path)})
    assert spec.backend == "local"
    df = run_sweep(spec, get_backend(spec.backend), progress=False)
    assert 2 <= df.height <= 5 and (df["status"] == "ok").all()
    assert all(df["chosen_because"].to_list())
    status = AdaptiveDesign(spec, df).status()
    assert status.finished and status.decisions is not None
    subjects = {d.subject: d for d in status.decisions}
    assert "knee" in subjects and "dead zone at unlimited" in subjects
    limited = df.filter(pl.col("cpu_limit_cores") == 0.5)
    assert limited.height >= 1 and (limited["nr_periods"] > 0).all()  # measured by the kernel's CFS accounting
    # no claim about which limit is faster: on a shared 2-core machine that is the measurement's business
