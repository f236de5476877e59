"""The simulated backend: ground truth shapes, seeded noise, validation, and whole sweeps in milliseconds."""

from __future__ import annotations

import math
import statistics

import pytest

from throttlelab import tables
from throttlelab.errors import SpecError
from throttlelab.experiment.registry import get_backend
from throttlelab.experiment.simulation.simulated_backend import (
    SimulatedTruth,
    draw_seconds,
    noise_sd,
    true_seconds,
    truth_from_options,
)
from throttlelab.experiment.sweeps.spec_loading import load_spec, spec_from_mapping
from throttlelab.experiment.sweeps.run_sweep import run_sweep


def test_truth_has_a_knee_a_dead_zone_and_a_thread_sweet_spot():
    t = SimulatedTruth(cpu_seconds=4, parallelism=2, knee_sharpness=50, machine_cores=4)
    assert true_seconds(t, 0.5, "4") == pytest.approx(8.0, rel=0.01)
    assert true_seconds(t, 1.0, "4") == pytest.approx(4.0, rel=0.01)
    assert true_seconds(t, 3.0, "4") == pytest.approx(true_seconds(t, None, "4"), rel=0.01)  # past the knee
    dz = SimulatedTruth(parallelism=4, dead_zone={"from": 1.5, "to": 2, "slowdown_pct": 60})
    assert true_seconds(dz, 2, "4") / true_seconds(SimulatedTruth(parallelism=4), 2, "4") == pytest.approx(1.6)
    assert true_seconds(dz, 2, "4") > true_seconds(dz, 1.25, "4")  # slower than a smaller limit
    go = SimulatedTruth(parallelism=4, oversubscription_pct=30)  # GOMAXPROCS-like under a 2-core quota
    times = {n: true_seconds(go, 2, n) for n in ("1", "2", "4", "8")}
    assert min(times, key=times.get) == "2"
    con = SimulatedTruth(contention_slowdown=0.8)
    assert true_seconds(con, None, "4", 0.5) > true_seconds(con, None, "1", 0.5) / 4 * 1.2  # grows with load


def test_noise_is_seeded_grows_with_the_limit_and_has_outliers():
    t = SimulatedTruth(noise_cv=0.08, noise_growth=0.5, outlier_rate=0.05, seed=1)
    assert draw_seconds(t, "a", 1, "2") == draw_seconds(t, "a", 1, "2")
    assert draw_seconds(t, "a", 1, "2") != draw_seconds(t, "b", 1, "2")

    def spread(limit):
        logs = [math.log(draw_seconds(t, f"r{i}", limit, "1")[0]) for i in range(2000)]
        return statistics.median(abs(v - statistics.median(logs)) for v in logs)

    assert spread(4) > 1.5 * spread(0.5)
    outliers = sum(draw_seconds(t, f"r{i}", 1, "1")[1] for i in range(4000))
    assert 120 < outliers < 280  # about 5 %


@pytest.mark.parametrize(("options", "key"), [
    ({"noise_cv": -1}, "simulated.noise_cv"),
    ({"parallelism": 0}, "simulated.parallelism"),
    ({"dead_zone": {"from": 1}}, "simulated.dead_zone.to"),
    ({"outlier_factor": [3, 1]}, "simulated.outlier_factor"),
    ({"nosie_cv": 0.1}, "simulated.nosie_cv"),
])
def test_bad_options_name_the_key(options, key):
    with pytest.raises(SpecError, match=rf"s\.yaml: key '{key}'"):
        spec_from_mapping({"name": "s", "backend": "simulated", "simulated": options}, source="s.yaml")
    with pytest.raises(SpecError):
        truth_from_options(options)


def test_a_misspelt_simulated_key_names_file_line_and_the_close_match(tmp_path):
    path = tmp_path / "sim.yaml"
    path.write_text("name: s\nbackend: simulated\nsimulated:\n  parallelism: 2\n  nosie_cv: 0.1\n")
    with pytest.raises(SpecError, match=r"sim\.yaml:5: key 'simulated\.nosie_cv': unknown key \(did you mean "
                                        r"'noise_cv'\?"):
        load_spec(path)


def test_a_grid_sweep_on_the_simulated_backend(tmp_path):
    spec = spec_from_mapping({"name": "sim", "backend": "simulated", "simulated": {"parallelism": 2, "seed": 4},
                              "limits": [0.5, 1, 2, "unlimited"], "threads": [1, 2], "replicates": 3,
                              "data_root": str(tmp_path)})
    assert get_backend("simulated").available() == (True, "")
    df = run_sweep(spec, get_backend(spec.backend), progress=False)
    assert df.height == 24 and (df["status"] == "ok").all()
    assert tables.validate(df, "runs") == []
    med = {lim: df.filter(df["cpu_limit_cores"] == lim)["wall_seconds"].median() for lim in (0.5, 2)}
    truth = truth_from_options(spec.backend_options)
    true_ratio = true_seconds(truth, 0.5, "1") / statistics.median(true_seconds(truth, 2, t) for t in ("1", "2"))
    assert true_ratio > 2.5 and abs(med[0.5] / med[2] / true_ratio - 1) < 0.25  # the limit's effect, within the noise
    again = run_sweep(spec, get_backend(spec.backend), progress=False)  # resumes: nothing new, same rows
    assert again.sort("run_id")["wall_seconds"].to_list() == df.sort("run_id")["wall_seconds"].to_list()


def test_noise_grows_with_the_cores_the_limit_gives():
    t = SimulatedTruth(noise_cv=0.05, noise_growth=0.25, machine_cores=4)
    assert noise_sd(t, 0.5) < noise_sd(t, 2.0) < noise_sd(t, 4.0) == noise_sd(t, 8.0) == noise_sd(t, None)
