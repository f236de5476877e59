"""The scaling models' curves, and a fitted model's predictions, intervals, bands and shared Fit form."""

from __future__ import annotations

import math

import numpy as np
import pytest

from throttlelab.analysis.limits.scaling_models import MODELS, ScalingFit, USLFit, usl_throughput
from throttlelab.results import ConfidenceInterval


def test_the_curves():
    assert usl_throughput(1, 0.1, 0.01, 50.0) == pytest.approx(50.0)
    assert usl_throughput(4, 0.1, 0.01, 50.0) == pytest.approx(200 / (1 + 0.3 + 0.12))
    assert MODELS["amdahl"].time(4, 2.0, 8.0) == pytest.approx(4.0)
    # quota: no faster than the usable parallelism, plus the fixed part
    assert MODELS["quota"].time([1, 2, 8], 8.0, 2.0, 1.0).tolist() == [9.0, 5.0, 5.0]
    assert MODELS["usl"].time(2, 0.0, 0.0, 10.0) == pytest.approx(1 / 20)


def _fit(**kw) -> ScalingFit:
    base = dict(model="amdahl", parameters={"serial_seconds": 2.0, "parallel_seconds": 8.0},
                standard_errors={"serial_seconds": 0.5, "parallel_seconds": 1.0}, response="time", n=10, df_resid=8,
                rss=0.1, aic=-30.0, aicc=-28.0, level=0.95,
                intervals={"serial_seconds": ConfidenceInterval(1.0, 3.0),
                           "parallel_seconds": ConfidenceInterval(6.0, 10.0)},
                interval_method="profile likelihood", n_boot=0)
    return ScalingFit(**(base | kw))


def test_predictions_and_intervals():
    f = _fit()
    assert f.predict_time([1, 4]).tolist() == [10.0, 4.0]
    assert f.predict_throughput(4) == pytest.approx(0.25)
    assert f.confidence_interval("serial_seconds") == ConfidenceInterval(1.0, 3.0)
    asym = f.confidence_interval("serial_seconds", level=0.90)  # another level: asymptotic t (no bootstrap)
    q = 1.8595480375228424  # t(0.95, 8)
    assert asym.low == pytest.approx(2.0 - q * 0.5) and asym.high == pytest.approx(2.0 + q * 0.5)
    with pytest.raises(ValueError, match="not bootstrapped"):
        f.confidence_interval("serial_seconds", method="bootstrap")
    lo, hi = f.band([1, 2])
    assert np.isnan(lo).all() and np.isnan(hi).all()


def test_bootstrap_draws_give_intervals_and_bands():
    f = _fit(n_boot=3)
    object.__setattr__(f, "_boot_draws", np.array([[1.0, 7.0], [2.0, 8.0], [3.0, 9.0]]))
    ci = f.confidence_interval("parallel_seconds", method="bootstrap", level=0.5)
    assert 7.0 <= ci.low < 8.0 < ci.high <= 9.0
    lo, hi = f.band([1.0], level=0.5)
    assert lo[0] < 10.0 < hi[0]


def test_as_fit_and_usl_peak():
    fit = _fit().as_fit()
    assert fit.parameters["parallel_seconds"].high == 10.0 and fit.goodness["aic"] == -30.0
    usl = USLFit(**{k: getattr(_fit(), k) for k in ScalingFit.__dataclass_fields__}, alpha=0.1, beta=0.01, gamma=50.0)
    assert usl.peak() == pytest.approx(math.sqrt(0.9 / 0.01))
    assert USLFit(**{k: getattr(_fit(), k) for k in ScalingFit.__dataclass_fields__}, alpha=0.1, beta=0.0).peak() == math.inf
