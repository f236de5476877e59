"""The sweep runner: resume, failures as rows, cleanup, and a SIGKILLed sweep resumed on real cgroups."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import polars as pl
import pytest

from throttlelab import tables
from throttlelab.experiment.registry import get_backend
from throttlelab.experiment.sweeps.backends import Backend, base_row
from throttlelab.experiment.sweeps.run_store import RunStore
from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping
from throttlelab.experiment.sweeps.run_sweep import pending_runs, run_sweep


class RecordingBackend:
    """An in-process backend for the runner's mechanics (no cgroups): rows from the plan."""

    name = "recording"

    def __init__(self, fail_on=(), raise_on=(), interrupt_on=()):
        self.calls, self.prepared, self.cleaned = [], 0, 0
        self.fail_on, self.raise_on, self.interrupt_on = set(fail_on), set(raise_on), set(interrupt_on)

    def available(self):
        return True, ""

    def prepare(self, spec):
        self.prepared += 1

    def execute(self, plan, monitor_log):
        self.calls.append(plan.run_id)
        if plan.run_id in self.interrupt_on:
            raise KeyboardInterrupt
        if plan.run_id in self.raise_on:
            raise RuntimeError("backend broke")
        monitor_log.write_text("=== CPU Monitoring Started ===\n")
        row = base_row(plan, self.name)
        ok = plan.run_id not in self.fail_on
        row.update(status="ok" if ok else "failed", error=None if ok else "exit code 1", wall_seconds=0.01,
                   exit_code=0 if ok else 1, started_at=None)
        return row

    def cleanup(self, spec):
        self.cleaned += 1

    def find_orphans(self):
        return []

    def remove_orphans(self):
        return []


def small_spec(tmp_path, **kw):
    return spec_from_mapping({"name": "s", "limits": [0.5, 1], "threads": [1, 2], "replicates": 2, "warmup": 1,
                              "data_root": str(tmp_path), **kw})


def test_registry(monkeypatch):
    from throttlelab.config_file import ConfigModel
    from throttlelab.experiment import registry
    from throttlelab.experiment.sweeps import spec_file

    class RecordingOptions(ConfigModel):
        """The block of a test backend."""

    assert isinstance(RecordingBackend(), Backend)
    monkeypatch.setitem(spec_file.BACKENDS, "recording", RecordingOptions)  # a backend is its name, block, factory
    monkeypatch.setitem(registry.FACTORIES, RecordingOptions, RecordingBackend)
    assert get_backend("recording").name == "recording"
    assert get_backend("local").name == "local"
    with pytest.raises(KeyError, match="known"):
        get_backend("nope")


def test_runs_everything_once_then_resumes_nothing(tmp_path):
    spec = small_spec(tmp_path)
    b = RecordingBackend()
    df = run_sweep(spec, b, progress=False)
    assert tables.validate(df, "runs") == []
    assert sorted(df["run_id"]) == sorted(p.run_id for p in spec.plan())
    assert b.calls == [p.run_id for p in spec.plan()]  # in plan order
    assert df.filter(pl.col("warmup"))["run_id"].to_list() == [spec.plan()[0].run_id]
    assert df["monitor_log"].str.starts_with("monitor/").all()
    assert (spec.experiment_dir / "spec.yaml").exists()
    assert b.prepared == b.cleaned == 1
    b2 = RecordingBackend()
    run_sweep(spec, b2, progress=True)
    assert b2.calls == [] and b2.prepared == 0


def test_failures_are_rows_and_can_be_retried(tmp_path):
    spec = small_spec(tmp_path)
    ids = [p.run_id for p in spec.plan()]
    b = RecordingBackend(fail_on={ids[1]}, raise_on={ids[2]})
    df = run_sweep(spec, b, progress=False)
    by_id = {r["run_id"]: r for r in df.iter_rows(named=True)}
    assert by_id[ids[1]]["status"] == "failed" and by_id[ids[1]]["error"] == "exit code 1"
    assert by_id[ids[2]]["status"] == "failed" and "RuntimeError: backend broke" in by_id[ids[2]]["error"]
    assert df.height == len(ids)
    assert pending_runs(spec) == []
    assert [p.run_id for p in pending_runs(spec, retry_failed=True)] == ids[1:3]
    b2 = RecordingBackend()
    df2 = run_sweep(spec, b2, progress=False, retry_failed=True)
    assert b2.calls == ids[1:3]
    assert df2.height == len(ids) and (df2["status"] == "ok").all()
    assert RunStore(spec.experiment_dir).read_runs(all_attempts=True).height == len(ids) + 2


def test_interrupt_cleans_up_and_writes_no_row(tmp_path):
    spec = small_spec(tmp_path)
    ids = [p.run_id for p in spec.plan()]
    b = RecordingBackend(interrupt_on={ids[3]})
    with pytest.raises(KeyboardInterrupt):
        run_sweep(spec, b, progress=False)
    assert b.cleaned == 1
    assert RunStore(spec.experiment_dir).completed_run_ids() == set(ids[:3])
    b2 = RecordingBackend()
    run_sweep(spec, b2, progress=False, max_runs=2)
    assert b2.calls == ids[3:5]


def test_cooldown_between_runs(tmp_path):
    spec = small_spec(tmp_path, cooldown_s=0.05, limits=[1], threads=[1], replicates=3, warmup=0)
    t0 = time.monotonic()
    run_sweep(spec, RecordingBackend(), progress=False)
    assert time.monotonic() - t0 >= 0.1


# -- real cgroups ---------------------------------------------------------------
SWEEP_SCRIPT = """
import json, sys
from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping
from throttlelab.experiment.registry import get_backend
from throttlelab.experiment.sweeps.run_sweep import run_sweep
run_sweep(spec_from_mapping(json.loads(sys.argv[1])), get_backend("local"), progress=False)
"""


@pytest.mark.cgroup
@pytest.mark.slow
def test_sigkilled_sweep_resumes_without_duplicates_or_leftovers(cgroup_layout, tmp_path):
    from throttlelab.experiment.local_cgroup.cgroup_orphans import owner_name

    mapping = {"name": "k", "workload": {"kind": "burner", "cpu_seconds": 0.15}, "limits": [0.5, 1],
               "threads": [1, 2], "replicates": 2, "sampling_interval_s": 0.1, "data_root": str(tmp_path)}
    spec = spec_from_mapping(mapping)
    store = RunStore(spec.experiment_dir)
    proc = subprocess.Popen([sys.executable, "-c", SWEEP_SCRIPT, json.dumps(mapping)])
    deadline = time.monotonic() + 60
    while len(store.completed_run_ids()) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    time.sleep(0.1)  # most likely in the middle of a run now
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = store.completed_run_ids()
    assert 2 <= len(done_before) < 8
    killed_dirs = [d for d in cgroup_layout.parent.iterdir() if d.name.startswith(f"o{proc.pid}-")]
    assert killed_dirs, "the killed sweep's cgroups should still be there before the resume"

    df = run_sweep(spec, get_backend(spec.backend), progress=False)
    ids = [p.run_id for p in spec.plan()]
    assert sorted(df["run_id"]) == sorted(ids)
    assert (df["status"] == "ok").all()
    every = store.read_runs(all_attempts=True)
    assert every.height == len(ids) and every["run_id"].n_unique() == len(ids)
    assert not list(store.runs_dir.glob(".tmp-*"))
    # no cgroup left: neither the killed sweep's nor ours
    parents = {cgroup_layout.parent, (cgroup_layout.cpuacct_base or cgroup_layout.base) / "throttlelab"}
    for parent in parents:
        names = [d.name for d in parent.iterdir() if d.is_dir()]
        assert not [n for n in names if n.startswith(f"o{proc.pid}-")], names
        assert owner_name() not in names
