"""Result objects in the style of ``scipy.stats`` and the one function that turns any of them into JSON.

Every analysis returns frozen dataclasses with named fields and a
``confidence_interval()`` method.  Two small types carry the numbers a report
states: :class:`Estimate` (a value, its interval, level, method, p-value where
there is one and the number of runs behind it) and :class:`Fit` (a fitted model:
parameters as estimates, goodness of fit, warnings such as a parameter at its
bound).

The fit family: each model an analysis fits has its own class for computing with
it (``ScalingFit`` and ``USLFit``, ``ActiveTimeFit``, ``ResponseCurveFit``,
``LoadFit``: predictions, bands, bootstrap draws), and every one is a
:class:`FittedModel` whose :meth:`~FittedModel.as_fit` states it as the one
:class:`Fit` results hold, built by :meth:`Fit.of`.  :func:`to_jsonable` turns any result (and numpy or polars values inside
it) into plain JSON for ``results.json``; the JSON Schema and
``docs/results_schema.md`` are generated from these classes
(:mod:`throttlelab.report.results_schema`, ``scripts/results_schema.py``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import Any, NamedTuple, Protocol, runtime_checkable


class ConfidenceInterval(NamedTuple):
    """A two-sided confidence interval (like ``scipy.stats``' ``ConfidenceInterval``)."""

    low: float
    high: float


@dataclass(frozen=True)
class Estimate:
    """A number with its interval: what a headline states.

    Attributes
    ----------
    value
        The point estimate (``null`` in JSON when it cannot be computed).
    low, high
        Confidence interval at ``level`` (``null`` when none can be given).
    level
        Confidence level of the interval.
    method
        How the value and interval were computed (e.g. ``"Welch t on log run means"``).
    p_value
        p-value of the stated test (``null`` when the estimate carries no test).
    n_runs
        Runs (the experimental units) behind the estimate; ``null`` for published
        summaries whose run count is unknown.
    unit
        ``"pct"``, ``"seconds"``, ``"ratio"``, ... .
    note
        One line a reader needs, e.g. what the interval leaves out.
    n_samples
        Samples behind the estimate when they are not runs (requests, fitted points); ``null`` otherwise.
    """

    value: float | None
    low: float | None
    high: float | None
    level: float = 0.95
    method: str = ""
    p_value: float | None = None
    n_runs: int | None = None
    unit: str = ""
    note: str = ""
    n_samples: int | None = None

    def confidence_interval(self) -> ConfidenceInterval:
        nan = float("nan")
        return ConfidenceInterval(nan if self.low is None else self.low, nan if self.high is None else self.high)

    def excludes(self, value: float = 0.0) -> bool:
        """True when the interval lies entirely on one side of ``value``."""
        lo, hi = self.confidence_interval()
        return (lo > value) or (hi < value)


@dataclass(frozen=True)
class Fit:
    """A fitted model: parameters with intervals, goodness of fit and warnings.

    Attributes
    ----------
    model
        Model name (``amdahl``, ``usl``, ``quota``, ``hyperbolic``, ...).
    parameters
        Parameter name -> :class:`Estimate` (value and interval).
    goodness
        Goodness-of-fit numbers by name (``aic``, ``aicc``, ``r_squared``, ``rmse_log``, ...).
    n
        Points fitted.
    level, interval_method
        Confidence level and how the parameter intervals were computed.
    warnings
        Things a reader must know, e.g. ``"gamma at its bound 0"``.
    derived
        Quantities read off the fitted model, each with its interval (e.g. a response curve's ``knee``); empty when
        the model has none.
    """

    model: str
    parameters: dict[str, Estimate]
    goodness: dict[str, float]
    n: int
    level: float = 0.95
    interval_method: str = ""
    warnings: tuple[str, ...] = ()
    derived: dict[str, Estimate] = field(default_factory=dict)

    def confidence_interval(self, parameter: str) -> ConfidenceInterval:
        """Interval of one parameter (or of a derived quantity)."""
        return (self.parameters.get(parameter) or self.derived[parameter]).confidence_interval()

    @classmethod
    def of(cls, model: str, values: Mapping[str, float], intervals: Mapping[str, tuple[float, float]], *, level: float,
           method: str, goodness: Mapping[str, float], n: int, warnings: tuple[str, ...] = (),
           derived: Mapping[str, Estimate] | None = None, units: Mapping[str, str] | None = None,
           n_samples: int | None = None) -> Fit:
        """A fit from its parameters' values and intervals, each made an :class:`Estimate` at ``level`` by ``method``
        (with its unit from ``units`` and ``n_samples``).

        Examples
        --------
        >>> f = Fit.of("linear", {"slope": 0.9}, {"slope": (0.8, 1.0)}, level=0.95, method="least squares",
        ...            goodness={"r_squared": 0.97}, n=12)
        >>> f.parameters["slope"].confidence_interval(), f.interval_method, f.derived
        (ConfidenceInterval(low=0.8, high=1.0), 'least squares', {})
        """
        params = {k: Estimate(v, intervals[k][0], intervals[k][1], level, method, unit=(units or {}).get(k, ""),
                              n_samples=n_samples) for k, v in values.items()}
        return cls(model, params, dict(goodness), n, level, method, tuple(warnings), dict(derived or {}))


@runtime_checkable
class FittedModel(Protocol):
    """A member of the fit family: a fitted model of one kind, with what computing with it needs, stated as a :class:`Fit`.

    Attributes
    ----------
    n, level
        Points fitted; confidence level of its intervals.
    """

    n: int
    level: float

    def as_fit(self) -> Fit:
        """The fit as the :class:`Fit` results hold (parameters as estimates, goodness, warnings, derived quantities)."""
        ...

    def confidence_interval(self, *args: Any, **kwargs: Any) -> Any:
        """Its headline interval (a parameter's, or the one quantity it is fitted for)."""
        ...


def to_jsonable(obj: Any) -> Any:
    """Convert ``obj`` to JSON-compatible Python values.

    Dataclasses become dicts (without their ``_private`` fields), NamedTuples dicts, numpy scalars and arrays Python
    numbers and lists, polars frames lists of row dicts; NaN and infinities become
    ``None`` (JSON has no NaN).
    """
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        # Fields named with a leading underscore are internal (kept for computation, not results).
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj) if not f.name.startswith("_")}
    if isinstance(obj, tuple) and hasattr(obj, "_asdict"):
        return {k: to_jsonable(v) for k, v in obj._asdict().items()}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, int):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, (dt.datetime, dt.date)):
        return obj.isoformat()
    mod = type(obj).__module__
    if mod.startswith("numpy"):
        if hasattr(obj, "tolist"):
            return to_jsonable(obj.tolist())
    if mod.startswith("polars"):
        if hasattr(obj, "to_dicts"):
            return to_jsonable(obj.to_dicts())
        if hasattr(obj, "to_list"):
            return to_jsonable(obj.to_list())
    if hasattr(obj, "__fspath__"):
        return str(obj)
    raise TypeError(f"cannot convert {type(obj).__name__} to JSON")
