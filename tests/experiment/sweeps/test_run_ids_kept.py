"""Run ids do not change with the code: spec files and run stores written by earlier code resume.

``tests/fixtures/run_ids/run_ids.json`` holds the config hash, the planned run ids (also after overrides) and the
stored ``spec.yaml`` of each spec in ``tests/fixtures/run_ids/specs/``, as the code at commit 29ccacd gave them.
``tests/fixtures/run_stores/`` holds two run stores that code wrote part-way (a grid and an adaptive sweep on the
simulated backend) and, in ``after_resume.json``, what that code's resume made of them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from throttlelab.experiment.registry import get_backend
from throttlelab.experiment.sweeps.run_store import RunStore
from throttlelab.experiment.sweeps.run_sweep import pending_runs, run_sweep
from throttlelab.experiment.sweeps.spec_loading import load_spec, spec_from

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
RECORDED = json.loads((FIXTURES / "run_ids" / "run_ids.json").read_text())


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_a_spec_file_plans_the_run_ids_it_planned_before(name):
    spec = load_spec(FIXTURES / "run_ids" / "specs" / name, data_root="/data")
    want = RECORDED[name]
    assert spec.config_hash() == want["config_hash"]
    assert [r.run_id for r in spec.plan()] == want["run_ids"]
    over = spec_from(spec, limits=[0.5, "unlimited"], replicates=1)
    assert [r.run_id for r in over.plan()] == want["overridden_run_ids"]
    assert yaml.safe_dump(spec.to_mapping(), sort_keys=False) == want["spec_yaml"]


def test_the_recorded_ids_are_not_empty():
    assert len(RECORDED) >= 7 and all(len(v["run_ids"]) >= 4 for v in RECORDED.values())
    assert len({v["config_hash"] for v in RECORDED.values()}) == len(RECORDED)


@pytest.mark.parametrize("name, stored, total", [("sim_grid", 8, 12), ("sim_adaptive", 10, 12)])
def test_a_run_store_written_by_earlier_code_resumes(tmp_path, name, stored, total):
    shutil.copytree(FIXTURES / "run_stores" / name, tmp_path / name)
    spec = load_spec(FIXTURES / "run_stores" / f"{name}.yaml", data_root=tmp_path)
    store = RunStore(spec.experiment_dir)
    before = store.read_runs()
    assert before.height == stored
    if spec.design == "grid":  # every stored run is one of the plan: only the others are pending
        assert set(before["run_id"]) <= {p.run_id for p in spec.plan()}
        assert len(pending_runs(spec, store)) == total - stored
    after = run_sweep(spec, get_backend(spec.backend), progress=False).sort("run_id", "started_at")
    want = json.loads((FIXTURES / "run_stores" / "after_resume.json").read_text())[name]
    assert after.height == total
    assert after["run_id"].to_list() == want["run_ids"]
    assert after["wall_seconds"].to_list() == pytest.approx(want["wall_seconds"], rel=1e-12)
    if want["chosen_because"] is not None:
        assert after["chosen_because"].to_list() == want["chosen_because"]
