"""The service workload: options, latency percentiles with failures, and a short sweep on real cgroups."""

from __future__ import annotations

import polars as pl
import pytest

from throttlelab.errors import SpecError
from throttlelab.experiment.local_cgroup import workloads
from throttlelab.experiment.sweeps.plan import Workload
from throttlelab.experiment.local_cgroup.service_load import latency_percentiles, service_options


def test_options_are_checked():
    assert service_options(Workload("service"))["vus"] == 16
    with pytest.raises(SpecError, match="'rate' must be a number >= 0"):
        service_options(Workload("service", options={"rate": "fast"}))
    with pytest.raises(SpecError, match="needs 'vus'"):
        service_options(Workload("service", options={"vus": 0, "rate": 0}))
    with pytest.raises(SpecError, match="must be > 0"):
        service_options(Workload("service", options={"window_s": 0}))
    assert service_options(Workload("service"))["poisson"] == 0.0  # evenly spaced arrivals unless asked
    assert service_options(Workload("service", options={"poisson": True}))["poisson"] == 1.0
    with pytest.raises(SpecError, match="'poisson' must be true or false"):
        service_options(Workload("service", options={"poisson": "yes"}))


def test_poisson_arrivals_are_a_spec_key_and_checked_there_too():
    from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping

    base = {"name": "s", "limits": [1], "threads": [1], "data_root": "/tmp", "timeout_s": 60}
    spec = spec_from_mapping({**base, "workload": {"kind": "service", "rate": 40, "poisson": True}})
    assert service_options(spec.workload)["poisson"] == 1.0
    with pytest.raises(SpecError, match="poisson"):
        spec_from_mapping({**base, "workload": {"kind": "service", "poisson": 1}})


def test_spec_is_checked_before_the_sweep():
    from throttlelab.experiment.local_cgroup.service_load import check_service_spec
    from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping

    base = {"name": "s", "limits": [1], "threads": [1], "data_root": "/tmp"}
    check_service_spec(spec_from_mapping({**base, "workload": {"kind": "service"}, "timeout_s": 60}))
    with pytest.raises(SpecError, match="key 'timeout_s': a service run may take up to 25 s"):
        check_service_spec(spec_from_mapping({**base, "workload": {"kind": "service"}, "timeout_s": 20}))
    with pytest.raises(SpecError, match="key 'workload.vus': Input should be greater than or equal to 0, got -1"):
        check_service_spec(spec_from_mapping({**base, "workload": {"kind": "service", "vus": -1}, "timeout_s": 60}))


def test_failed_requests_count_at_the_timeout():
    ok = pl.DataFrame({"status": ["ok"] * 990, "latency_seconds": [0.01] * 990})
    assert latency_percentiles(ok, 2.0)["latency_p99_seconds"] == pytest.approx(0.01)
    assert latency_percentiles(ok, 2.0)["latency_p999_seconds"] is None  # 990 < 1000 requests: no p99.9
    bad = pl.concat([ok, pl.DataFrame({"status": ["timeout"] * 10, "latency_seconds": [None] * 10},
                                      schema={"status": pl.String, "latency_seconds": pl.Float64})])
    p = latency_percentiles(bad, 2.0)
    assert p["latency_p50_seconds"] == pytest.approx(0.01) and p["latency_p999_seconds"] == pytest.approx(2.0)
    assert latency_percentiles(ok.head(0), 2.0)["latency_p99_seconds"] is None


def test_service_command_sets_gomaxprocs():
    if workloads.go_exe() is None:
        pytest.skip("Go is not installed")
    cmd = workloads.build_command(Workload("service", options={"work": 5}), "4")
    assert cmd.env == {"GOMAXPROCS": "4"} and cmd.argv[-2:] == ["-work", "5"]
    assert workloads.build_command(Workload("service"), "auto").env == {}


@pytest.mark.cgroup
def test_short_service_sweep_end_to_end(cgroup_layout, tmp_path):
    """A 1-core limit, GOMAXPROCS 1 and auto, 0.6 s windows: throughput and latency land in the run store."""
    if workloads.go_exe() is None:
        pytest.skip("Go is not installed")
    from throttlelab.experiment.local_cgroup.local_backend import LocalBackend
    from throttlelab.experiment.sweeps.run_store import RunStore
    from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping
    from throttlelab.experiment.sweeps.run_sweep import run_sweep

    spec = spec_from_mapping({
        "name": "svc", "backend": "local", "limits": [1], "threads": [1, "auto"], "replicates": 1,
        "workload": {"kind": "service", "work": 5, "vus": 4, "rate": 20, "warmup_s": 0.3, "window_s": 0.6},
        "timeout_s": 30, "sampling_interval_s": 0.2, "data_root": str(tmp_path), "local": {"parent_weight_tasks": 8},
    })
    backend = LocalBackend(cgroup_layout)
    run_sweep(spec, backend, progress=False)
    runs = RunStore(tmp_path / "svc").read_runs()
    assert runs.height == 2 and runs["status"].to_list() == ["ok", "ok"], runs["error"].to_list()
    for r in runs.iter_rows(named=True):
        assert r["throughput_rps"] > 0 and r["requests_ok"] > 0
        assert 0 < r["latency_p50_seconds"] <= r["latency_p90_seconds"]  # 12 requests: no p99 or p99.9
        assert r["latency_p99_seconds"] is None and r["latency_p999_seconds"] is None
        assert r["load"] == 20 and r["cpu_seconds"] > 0 and r["workload"] == "service"
        assert (tmp_path / "svc" / "monitor" / f"{r['run_id']}.requests.parquet").exists()
    eff = dict(runs.select("threads", "threads_effective").iter_rows())
    assert eff["1"] == 1 and eff["auto"] >= 1  # auto: what the Go runtime chose under the 1-core limit
    for parent in cgroup_layout.parents:
        assert not (parent / backend.owner).exists() or not any((parent / backend.owner).iterdir())
