import dataclasses
import math

import numpy as np
import polars as pl

from throttlelab.results import ConfidenceInterval, Estimate, Fit, to_jsonable


@dataclasses.dataclass(frozen=True)
class _Fit:
    alpha: float
    ci: ConfidenceInterval
    _cache: object = None


def test_to_jsonable_handles_what_results_hold():
    out = to_jsonable({"fit": _Fit(np.float64(0.5), ConfidenceInterval(0.1, math.inf), _cache=np.eye(2)),
                       "xs": np.arange(3), "df": pl.DataFrame({"a": [1]}), "nan": float("nan")})
    assert out == {"fit": {"alpha": 0.5, "ci": {"low": 0.1, "high": None}}, "xs": [0, 1, 2],
                   "df": [{"a": 1}], "nan": None}


def test_every_fitted_model_is_of_the_one_fit_family():
    """Each model-specific fit states itself as the one Fit that results hold (built by Fit.of)."""
    import numpy as np

    from throttlelab.analysis.capacity.capacity import fit_load_levels
    from throttlelab.analysis.latency.response_curves import fit_response_curve
    from throttlelab.analysis.limits.active_time import fit_active_time
    from throttlelab.analysis.limits.scaling import fit_runtime_models, fit_usl
    from throttlelab.results import Fit, FittedModel

    cores = np.array([0.5, 0.5, 1, 1, 2, 2, 4, 4])
    secs = 2 + 8 / np.minimum(cores, 3) * np.array([1, 1.02, 0.99, 1.01, 1, 0.98, 1.01, 1])
    share = np.linspace(0, 0.8, 9)
    fits = [*fit_runtime_models(cores, secs), fit_usl(cores, 1 / secs), fit_active_time(share[1:], 0.9 * share[1:]),
            fit_response_curve(share, 0.05 / (1 - share), n_boot=20), fit_load_levels([10, 20, 40], [0.2, 0.29, 0.5])]
    for f in fits:
        assert isinstance(f, FittedModel), type(f).__name__
        shared = f.as_fit()
        assert type(shared) is Fit and shared.n == f.n and shared.level == f.level and shared.parameters
        for est in shared.parameters.values():
            assert est.low is None or est.low <= est.value <= est.high
    assert not isinstance(Fit("m", {}, {}, 1), FittedModel)


def test_fit_of_builds_estimates_from_values_and_intervals():
    import doctest

    from throttlelab import results

    f = Fit.of("amdahl", {"a": 1.0, "b": 2.0}, {"a": (0.5, 1.5), "b": (1.0, 3.0)}, level=0.9, method="profile",
               goodness={"aic": -3.0}, n=8, warnings=("b at its bound",), units={"a": "s"}, n_samples=8)
    assert f.parameters["a"] == Estimate(1.0, 0.5, 1.5, 0.9, "profile", unit="s", n_samples=8)
    assert f.parameters["b"].unit == "" and f.warnings == ("b at its bound",) and f.interval_method == "profile"
    assert doctest.testmod(results).failed == 0
