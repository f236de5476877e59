"""Queueing-style fits of response time against the neighbour's share."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from throttlelab.analysis.latency.response_curves import fit_from_requests, fit_response_curve, fit_summary
from throttlelab.analysis.stats.bootstrap import residual_draw
from throttlelab.ingest.published.published import load_contention


def test_hyperbolic_fit_recovers_a_known_curve():
    x = np.array([0, 0.2, 0.4, 0.5, 0.6, 0.65, 0.7])
    y = 0.02 + 0.03 / (0.9 - x)
    f = fit_response_curve(x, y, model="hyperbolic", n_boot=50)
    assert f.params["c"] == pytest.approx(0.9, abs=1e-3)
    assert f.pole.value == pytest.approx(0.9, abs=1e-3)
    # knee: slope equals the mean slope over [0, 0.7]
    avg = (y[-1] - y[0]) / 0.7
    assert f.knee.value == pytest.approx(0.9 - np.sqrt(0.03 / avg), abs=2e-3)
    assert f.r2 > 0.999
    assert f.predict(np.array([0.3]))[0] == pytest.approx(0.02 + 0.03 / 0.6, rel=1e-3)


def test_mm1_fit_recovers_service_time():
    x = np.repeat([0.0, 0.2, 0.4, 0.5, 0.6], 2)
    lam = np.tile([5.0, 10.0], 5)
    s, cap = 0.05, 1.5
    y = s / (1 - lam * s / (cap * (1 - x)))
    f = fit_response_curve(x, y, model="mm1", load=lam, n_boot=20)
    assert f.params["service_seconds"] == pytest.approx(s, rel=1e-2)
    assert f.params["effective_cores"] == pytest.approx(cap, rel=1e-2)


def test_published_fits_give_knee_with_interval():
    tab, fits = fit_summary(load_contention(), n_boot=40)
    row = tab.filter((pl.col("model") == "hyperbolic") & (pl.col("group") == "all")).row(0, named=True)
    assert row["knee_low"] <= row["knee"] <= row["knee_high"]
    assert 0.3 < row["knee"] < 0.6
    assert set(tab["group"]) == {"5.0", "10.0", "15.0", "all"}
    fit = fits[("hyperbolic", "all")].as_fit()  # the shared Fit: parameters, goodness, derived knee
    assert fit.model == "hyperbolic" and set(fit.parameters) == {"a", "b", "c"} and fit.n == row["n"]
    assert fit.derived["knee"].value == row["knee"] and fit.confidence_interval("knee") == (row["knee_low"],
                                                                                          row["knee_high"])
    assert fit.parameters["c"].low == row["c_low"] and fit.goodness["r_squared"] == row["r2"]


def test_fit_from_requests_bootstraps_requests():
    rng = np.random.default_rng(0)
    levels = [0.0, 0.2, 0.4, 0.6, 0.7]
    df = pl.concat([pl.DataFrame({"contention": lv, "load": 5.0, "status": "ok",
                                  "latency_seconds": rng.exponential(0.02 + 0.01 / (0.85 - lv), 60)}) for lv in levels])
    f = fit_from_requests(df, n_boot=30)
    assert f.n == 5
    assert f.knee.low <= f.knee.value <= f.knee.high


def test_too_few_points_is_an_error():
    with pytest.raises(ValueError, match="at least"):
        fit_response_curve([0, 0.5], [1, 2])


def test_summary_points_use_the_shared_residual_bootstrap():
    """The default replicate of a summary-point fit is stats.bootstrap's residual draw: passing it gives the same
    fit."""
    x = np.array([0, 0.2, 0.4, 0.5, 0.6, 0.65, 0.7, 0.3, 0.55])
    y = (0.02 + 0.03 / (0.9 - x)) * np.exp(np.random.default_rng(5).normal(0, 0.03, x.size))
    f = fit_response_curve(x, y, model="hyperbolic", n_boot=40, seed=3)
    fitted = f.predict(x)
    g = fit_response_curve(x, y, model="hyperbolic", n_boot=40, seed=3, resample=residual_draw(fitted, y - fitted, 3))
    assert (f.param_low, f.param_high) == (g.param_low, g.param_high)
    assert [(e.low, e.high) for e in (f.knee, f.doubling, f.pole)] == [(e.low, e.high)
                                                                       for e in (g.knee, g.doubling, g.pole)]
