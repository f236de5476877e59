"""Tests of throttlelab.experiment.sweeps.plan: deterministic, blocked run plans and run ids."""

from __future__ import annotations

from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping

from .sweep_specs import BASE


def test_plan_is_deterministic_blocked_and_marks_warmups():
    spec = spec_from_mapping({**BASE, "warmup": 2, "seed": 3})
    a, b = spec.plan(), spec.plan()
    assert [p.run_id for p in a] == [p.run_id for p in b]
    assert [p.order for p in a] == list(range(len(a)))
    assert [p.warmup for p in a[:2]] == [True, True] and not any(p.warmup for p in a[2:])
    ids = [p.run_id for p in a]
    assert len(set(ids)) == len(ids)
    # each replicate is one block holding the whole grid once
    runs = [p for p in a if not p.warmup]
    for rep in range(2):
        block = runs[rep * 6:(rep + 1) * 6]
        assert {p.replicate for p in block} == {rep}
        assert len({(p.limit_cores, p.threads) for p in block}) == 6
    # another seed, another order, same runs
    other = [p.run_id for p in spec.replace(seed=4).plan() if not p.warmup]
    assert sorted(other) == sorted(p.run_id for p in runs)
    assert other != [p.run_id for p in runs]
    seq = spec.replace(order="sequential").plan()
    assert [(p.limit_cores, p.threads) for p in seq[2:8]] == [
        (0.5, "1"), (0.5, "auto"), (1.5, "1"), (1.5, "auto"), (None, "1"), (None, "auto")]


def test_run_ids_are_names_and_change_with_the_workload():
    spec = spec_from_mapping({**BASE, "contention": [0, {"share": 0.5, "workers": 2}]})
    ids = {p.run_id for p in spec.plan()}
    assert "l500m-t1-c0-r0-" + spec.config_hash() in ids
    assert "lunl-tauto-c50w2-r1-" + spec.config_hash() in ids
    assert all(i.replace("-", "").isalnum() and i == i.lower() for i in ids)
    changed = spec_from_mapping({**BASE, "workload": {"kind": "burner", "cpu_seconds": 0.3}})
    assert changed.config_hash() != spec.config_hash()
