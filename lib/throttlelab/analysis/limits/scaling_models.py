"""The scaling models (USL, Amdahl, CFS quota) of run time against CPU, and a fitted model with its intervals and bands.

Models
------
``usl``
    Universal Scalability Law, ``X(n) = gamma n / (1 + alpha (n - 1) + beta n (n - 1))``
    (Gunther; ``alpha`` = contention sigma, ``beta`` = coherency kappa, ``gamma``
    = throughput at n = 1, lambda).  Run time is ``1 / X``.
``amdahl``
    ``T(n) = serial + parallel / n`` (USL with beta = 0, written in time).
``quota``
    ``T(n) = cpu_work / min(n, parallelism) + fixed``: a CFS quota of ``n``
    cores runs ``cpu_work`` core-seconds no faster than the program's usable
    ``parallelism`` allows, plus a part that does not scale (I/O, start-up).

Fits are made by :mod:`throttlelab.analysis.limits.scaling`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import stats

from throttlelab.analysis.stats import percentile_interval
from throttlelab.results import ConfidenceInterval, Fit


def usl_throughput(n, alpha: float, beta: float, gamma: float):
    """USL throughput at load ``n``: ``gamma n / (1 + alpha (n - 1) + beta n (n - 1))``."""
    n = np.asarray(n, float)
    return gamma * n / (1 + alpha * (n - 1) + beta * n * (n - 1))


def _usl_time(n, alpha, beta, gamma):
    return 1.0 / usl_throughput(n, alpha, beta, gamma)


def _amdahl_time(n, serial, parallel):
    return serial + parallel / np.asarray(n, float)


def _quota_time(n, cpu_work, parallelism, fixed):
    return cpu_work / np.minimum(np.asarray(n, float), parallelism) + fixed


@dataclass(frozen=True)
class _Model:
    name: str
    params: tuple[str, ...]
    time: Callable
    lower: tuple[float, ...]
    upper: tuple[float, ...]


MODELS: dict[str, _Model] = {
    "amdahl": _Model("amdahl", ("serial_seconds", "parallel_seconds"), _amdahl_time, (0, 0), (np.inf, np.inf)),
    "usl": _Model("usl", ("alpha", "beta", "gamma"), _usl_time, (0, 0, 0), (1, 1, np.inf)),
    "quota": _Model("quota", ("cpu_work_core_seconds", "usable_parallelism", "fixed_seconds"), _quota_time,
                    (0, 0.05, 0), (np.inf, np.inf, np.inf)),
}
#: The models' fixed order: coinciding fits are ranked and named in it, never by their AIC's last bits.
MODEL_ORDER: tuple[str, ...] = tuple(MODELS)


@dataclass(frozen=True)
class ScalingFit:
    """A fitted scaling model.

    Attributes
    ----------
    model
        ``usl``, ``amdahl`` or ``quota``.
    parameters, standard_errors
        Estimates and asymptotic standard errors by name.
    response
        ``throughput`` (linear least squares) or ``time`` (log least squares).
    n, df_resid, rss, aic, aicc
        Points, residual degrees of freedom, residual sum of squares (on the
        fitted scale), Akaike criteria (lower is better).
    level
        Confidence level of ``intervals`` (bootstrap if ``n_boot > 0``, else asymptotic).
    intervals
        Interval per parameter at ``level``.
    interval_method
        ``profile likelihood`` (run-time fits), ``bootstrap`` or ``asymptotic``.
    n_boot
        Bootstrap refits (0 = none; they give the curve bands).
    warnings
        Parameters at a bound, intervals that reach a bound or are unbounded.
    """

    model: str
    parameters: dict[str, float]
    standard_errors: dict[str, float]
    response: str
    n: int
    df_resid: int
    rss: float
    aic: float
    aicc: float | None
    level: float
    intervals: dict[str, ConfidenceInterval]
    interval_method: str
    n_boot: int
    warnings: tuple[str, ...] = ()

    def as_fit(self) -> Fit:
        """The fit as the shared :class:`~throttlelab.results.Fit` result type."""
        return Fit.of(self.model, self.parameters, self.intervals, level=self.level, method=self.interval_method,
                      goodness={"aic": self.aic, "aicc": self.aicc, "rss": self.rss}, n=self.n, warnings=self.warnings)

    @property
    def _boot(self) -> np.ndarray | None:
        """Bootstrap parameter draws (kept out of the dataclass fields, so out of results.json)."""
        return getattr(self, "_boot_draws", None)

    def confidence_interval(self, parameter: str | None = None, *, level: float | None = None,
                            method: str | None = None):
        """Interval of one parameter (or a dict of all).

        ``method`` is ``"profile likelihood"`` (run-time fits, at the fit's level), ``"bootstrap"`` or
        ``"asymptotic"`` (t with the standard error, as R's ``usl``).
        """
        level = self.level if level is None else level
        method = method or self.interval_method
        if method == "profile likelihood" and level == self.level:
            return self.intervals[parameter] if parameter else dict(self.intervals)
        if method == "profile likelihood":
            method = "bootstrap" if self._boot is not None else "asymptotic"
        names = [parameter] if parameter else list(self.parameters)
        out = {}
        for name in names:
            i = list(self.parameters).index(name)
            if method == "bootstrap":
                if self._boot is None:
                    raise ValueError("fit was not bootstrapped (n_boot=0): use method='asymptotic'")
                out[name] = percentile_interval(self._boot[:, i], level)
            else:
                q = stats.t.ppf(1 - (1 - level) / 2, max(self.df_resid, 1))
                est, se = self.parameters[name], self.standard_errors[name]
                out[name] = ConfidenceInterval(est - q * se, est + q * se)
        return out[parameter] if parameter else out

    def predict_time(self, n) -> np.ndarray:
        """Predicted run time (1 / throughput for ``usl``)."""
        return MODELS[self.model].time(n, *self.parameters.values())

    def predict_throughput(self, n) -> np.ndarray:
        return 1.0 / self.predict_time(n)

    def band(self, n, *, level: float | None = None, kind: str = "time") -> tuple[np.ndarray, np.ndarray]:
        """Pointwise bootstrap band of the fitted curve at ``n`` (NaN if not bootstrapped)."""
        n = np.asarray(n, float)
        if self._boot is None:
            return np.full(n.shape, np.nan), np.full(n.shape, np.nan)
        level = self.level if level is None else level
        ok = self._boot[np.all(np.isfinite(self._boot), axis=1)]
        with np.errstate(all="ignore"):
            curves = np.array([MODELS[self.model].time(n, *p) for p in ok])
        if kind == "throughput":
            curves = 1.0 / curves
        a = (1 - level) / 2
        return np.nanquantile(curves, a, axis=0), np.nanquantile(curves, 1 - a, axis=0)


@dataclass(frozen=True)
class USLFit(ScalingFit):
    """USL fit with ``alpha`` (contention sigma), ``beta`` (coherency kappa), ``gamma`` (lambda)."""

    alpha: float = math.nan
    beta: float = math.nan
    gamma: float = math.nan

    def peak(self) -> float:
        """Load (cores) of maximum throughput, ``sqrt((1 - alpha) / beta)`` (inf if beta = 0)."""
        return math.sqrt((1 - self.alpha) / self.beta) if self.beta > 0 else math.inf
