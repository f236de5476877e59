"""Scaling fits: USL against published references, runtime models, bootstrap intervals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats

from throttlelab.analysis.limits.scaling import fit_runtime_model, fit_runtime_models, fit_usl, usl_throughput
from throttlelab.results import to_jsonable

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "usl"


def _load(name):
    df = pl.read_csv(FIXTURES / f"{name}.csv")
    return df[:, 0].to_numpy(), df[:, 1].to_numpy()


def test_specsdm91_matches_r_usl_summary():
    u = fit_usl(*_load("specsdm91"))
    # R usl tests/summary.Rout.save, 4 significant digits.
    assert u.alpha == pytest.approx(2.773e-02, rel=5e-4)
    assert u.beta == pytest.approx(1.044e-04, rel=5e-4)
    assert u.gamma == pytest.approx(9.000e01, rel=5e-4)
    assert u.standard_errors["alpha"] == pytest.approx(9.122e-03, rel=5e-4)
    assert u.standard_errors["beta"] == pytest.approx(1.988e-05, rel=5e-4)
    assert u.standard_errors["gamma"] == pytest.approx(1.421e01, rel=5e-4)
    assert np.sqrt(u.rss / u.df_resid) == pytest.approx(82.85, rel=5e-4)


def test_raytracer_matches_r_usl_coefficients_and_confint():
    n, x = _load("raytracer")
    u = fit_usl(n, x)
    assert u.alpha == pytest.approx(0.0578, abs=5e-5)
    assert u.beta == pytest.approx(0.0, abs=5e-9)
    assert u.gamma == pytest.approx(21.8488, abs=5e-5)
    # usl's confint: estimate +- se * qt(level, n - 1) (see tests/fixtures/usl/README.md).
    q = stats.t.ppf(0.95, len(n) - 1)
    for name, (lo, hi) in {"alpha": (0.033677, 0.081864), "beta": (-0.000214, 0.000214),
                           "gamma": (17.868380, 25.829306)}.items():
        est, se = u.parameters[name], u.standard_errors[name]
        assert est - q * se == pytest.approx(lo, abs=1e-6 if name != "gamma" else 1e-4)
        assert est + q * se == pytest.approx(hi, abs=1e-6 if name != "gamma" else 1e-4)


def test_cisco_matches_usl4j_within_0_02_percent():
    u = fit_usl(*_load("cisco"))
    assert u.alpha == pytest.approx(0.02671591, rel=2e-4)
    assert u.beta == pytest.approx(7.690945e-4, rel=2e-4)
    assert u.gamma == pytest.approx(995.6486, rel=2e-4)
    assert u.peak() == pytest.approx(35, abs=1)  # usl4j maxConcurrency (book: 35)


def test_usl_result_is_frozen_with_intervals_and_jsonable():
    u = fit_usl(*_load("specsdm91"), n_boot=60, seed=3)
    with pytest.raises(AttributeError):
        u.alpha = 1.0  # frozen
    ci = u.confidence_interval("alpha")
    assert ci.low < u.alpha < ci.high
    asym = u.confidence_interval("beta", method="asymptotic")
    assert asym.low < u.beta < asym.high
    again = fit_usl(*_load("specsdm91"), n_boot=60, seed=3)
    assert again.confidence_interval("alpha") == ci  # seeded
    doc = json.loads(json.dumps(to_jsonable(u)))
    assert set(doc) >= {"alpha", "beta", "gamma", "parameters", "intervals", "aic"}
    assert "_boot_draws" not in doc


def test_runtime_models_recover_a_quota_curve_and_rank_by_aic():
    rng = np.random.default_rng(0)
    cores = np.repeat([0.5, 1, 1.5, 2, 3, 4, 6, 8], 3)
    true = 40 / np.minimum(cores, 3) + 2
    t = true * np.exp(rng.normal(0, 0.03, cores.size))
    fits = fit_runtime_models(cores, t, n_boot=30, seed=1)
    assert [f.aic for f in fits] == sorted(f.aic for f in fits)
    quota = next(f for f in fits if f.model == "quota")
    assert quota.parameters["cpu_work_core_seconds"] == pytest.approx(40, rel=0.1)
    assert quota.parameters["usable_parallelism"] == pytest.approx(3, rel=0.1)
    assert fits[0].model == "quota"
    lo, hi = quota.band(np.array([1.0, 4.0]))
    assert np.all(lo <= quota.predict_time([1.0, 4.0]) * 1.05) and np.all(hi >= quota.predict_time([1.0, 4.0]) * 0.95)


def test_amdahl_fit_on_exact_data():
    cores = np.array([1, 2, 4, 8.0])
    f = fit_runtime_model("amdahl", cores, 5 + 20 / cores, n_boot=0)
    assert f.parameters["serial_seconds"] == pytest.approx(5, rel=1e-6)
    assert f.interval_method == "profile likelihood"
    lo, hi = f.intervals["serial_seconds"]
    assert lo <= 5 + 1e-6 and hi >= 5 - 1e-6 and hi - lo < 1e-3  # exact data: the profile is sharp
    with pytest.raises(ValueError):
        f.confidence_interval("serial_seconds", method="bootstrap")


def test_too_few_points_is_an_error():
    with pytest.raises(ValueError, match="at least 3"):
        fit_usl([1, 2], [1, 2])


def test_usl_throughput_formula():
    assert usl_throughput(1, 0.1, 0.01, 5.0) == pytest.approx(5.0)


def test_parameter_at_its_bound_is_a_warning():
    cores = np.array([1, 2, 3, 4, 6, 8.0])
    f = fit_runtime_model("amdahl", cores, 20 / cores * np.exp([0.01, -0.01, 0.02, -0.02, 0.01, 0.0]), n_boot=0)
    assert any(w.startswith("serial_seconds at its lower bound") for w in f.warnings)
    assert f.intervals["serial_seconds"].low == 0.0 and f.as_fit().warnings == f.warnings


def test_profile_intervals_cover():
    # Monte Carlo coverage of the serial part of an Amdahl curve (8 limits, 5% noise): >= 90% at 95%
    rng = np.random.default_rng(5)
    cores = np.array([1, 1.5, 2, 3, 4, 6, 8, 12.0])
    hits = 0
    for _ in range(60):
        t = (3 + 30 / cores) * np.exp(rng.normal(0, 0.05, cores.size))
        lo, hi = fit_runtime_model("amdahl", cores, t, n_boot=0).intervals["serial_seconds"]
        hits += lo <= 3 <= hi
    assert hits / 60 >= 0.85
