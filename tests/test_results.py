import dataclasses
import math

import numpy as np
import polars as pl

from throttlelab.results import ConfidenceInterval, to_jsonable


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
