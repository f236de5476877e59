"""Capacity: per-unit CPU and memory cost, projected load under a threshold, before/after.

A *unit* is whatever the load is counted in: streams, requests/s, VUs.

With one measured load per variant (the MediaMTX report: 64 streams, before
and after an optimisation) a projection needs an assumption, stated in every
result:

* **linear through the origin** (the report's own): cost per unit =
  usage / units, usage(N) = N x cost per unit;
* its uncertainty is modelled, not measured: a **fixed overhead** (usage that
  does not grow with units) anywhere between 0 and ``fixed_overhead_max``
  (fraction of the measured usage), and a multiplicative **measurement
  noise** of ``noise_cv`` on the measured usage.  Both are drawn in a seeded
  Monte-Carlo; the interval is their percentile range.  A fixed overhead
  lowers the per-unit slope, so it makes projections *above* the measured
  load lower and capacities higher: the central (origin) value is the
  pessimistic end for extrapolation.

With several load levels, :func:`fit_load_levels` fits usage = fixed +
per_unit x load by least squares with t intervals, and projections carry a
prediction interval instead of an assumption.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl
from scipy import stats

from throttlelab.results import ConfidenceInterval, Estimate, Fit


@dataclass(frozen=True)
class UnitCost:
    """Measured usage of one variant at one load and its cost per unit.

    Attributes
    ----------
    variant
        Name of the variant (``asis``, ``tobe``).
    units, cpu_cores, memory_bytes
        The measured load and the usage at it.
    cpu_cores_per_unit, memory_bytes_per_unit
        Usage divided by the load.
    """

    variant: str
    units: float
    cpu_cores: float
    memory_bytes: float | None
    cpu_cores_per_unit: float
    memory_bytes_per_unit: float | None


@dataclass(frozen=True)
class CapacityProjection:
    """Projected CPU at ``units`` and the capacity under ``threshold x limit_cores``.

    Attributes
    ----------
    variant, units
        The variant and the target load.
    cpu_cores
        Projected CPU at the target load (cores) with its 95% range under ``assumption`` (no test: ``null`` p-value).
    cpu_pct_of_limit
        That CPU as a percentage of the limit (the headline).
    capacity_units
        Load at which CPU reaches ``threshold x limit_cores``, with its 95% range.
    threshold, limit_cores
        The share of the limit counted as full, and the limit.
    memory_bytes
        Projected memory at the target load (``null``: not measured).
    assumption
        What the projection and its ranges assume.
    """

    variant: str
    units: float
    cpu_cores: Estimate
    cpu_pct_of_limit: float
    capacity_units: Estimate
    threshold: float
    limit_cores: float
    memory_bytes: float | None
    assumption: str
    _parameters: dict[str, Any] = field(default_factory=dict, repr=False)

    def confidence_interval(self) -> ConfidenceInterval:
        return self.cpu_cores.confidence_interval()

    @property
    def parameters(self) -> dict[str, Any]:
        """The arguments of :func:`project_capacity` that made it (``units`` the target load)."""
        return dict(self._parameters)


@dataclass(frozen=True)
class VariantComparison:
    """After against before, in percent (negative = after uses less).

    Attributes
    ----------
    before, after
        The two variants.
    cpu_change_pct, memory_change_pct
        Change of CPU and memory per unit, percent.
    capacity_change_pct, capacity_ratio
        Change of capacity, percent and as after / before.
    cpu_change, capacity_change
        The CPU-per-unit and capacity changes with their (assumption-based) intervals.
    """

    before: str
    after: str
    cpu_change_pct: float
    memory_change_pct: float | None
    capacity_change_pct: float
    capacity_ratio: float
    cpu_change: Estimate | None = None  # CPU per unit change with its (assumption-based) interval
    capacity_change: Estimate | None = None


@dataclass(frozen=True)
class LoadFit:
    """``usage = fixed + per_unit x load`` fitted over several load levels."""

    fixed: float
    fixed_ci: ConfidenceInterval
    per_unit: float
    per_unit_ci: ConfidenceInterval
    residual_sd: float
    df: int
    n: int
    level: float
    _xtx_inv: tuple = ()
    _mean_load: float = 0.0

    def confidence_interval(self) -> ConfidenceInterval:
        return self.per_unit_ci

    def as_fit(self) -> Fit:
        """The fit as the shared :class:`~throttlelab.results.Fit` (``fixed`` and ``per_unit``, t intervals)."""
        return Fit.of("linear_load", {"fixed": self.fixed, "per_unit": self.per_unit},
                      {"fixed": self.fixed_ci, "per_unit": self.per_unit_ci}, level=self.level,
                      method="least squares, t interval", goodness={"residual_sd": self.residual_sd}, n=self.n,
                      n_samples=self.n)

    def predict(self, load: float) -> tuple[float, ConfidenceInterval]:
        """Usage at ``load`` with a prediction interval (a new measurement at that load)."""
        x = np.array([1.0, float(load)])
        v = float(x @ np.asarray(self._xtx_inv) @ x)
        q = stats.t.ppf(1 - (1 - self.level) / 2, self.df)
        est = self.fixed + self.per_unit * load
        h = q * self.residual_sd * math.sqrt(1 + v)
        return est, ConfidenceInterval(est - h, est + h)


def unit_costs(df: pl.DataFrame, *, unit_col: str = "streams", cpu_col: str = "cpu_cores",
               memory_col: str | None = "memory_bytes", variant_col: str = "variant") -> list[UnitCost]:
    """Cost per unit of each variant (one row per variant)."""
    out = []
    for r in df.iter_rows(named=True):
        units = float(r[unit_col])
        mem = float(r[memory_col]) if memory_col and r.get(memory_col) is not None else None
        out.append(UnitCost(str(r[variant_col]), units, float(r[cpu_col]), mem, float(r[cpu_col]) / units,
                            mem / units if mem is not None else None))
    return out


def project_capacity(
    cost: UnitCost,
    *,
    units: float = 100,
    limit_cores: float = 1.0,
    threshold: float = 0.7,
    fixed_overhead_max: float = 0.2,
    noise_cv: float = 0.10,
    n_sim: int = 20000,
    seed: int = 0,
    level: float = 0.95,
) -> CapacityProjection:
    """Project one variant's CPU to ``units`` and its capacity under ``threshold x limit_cores``."""
    rng = np.random.default_rng(seed)
    measured = cost.cpu_cores * np.exp(rng.normal(0.0, noise_cv, n_sim) - noise_cv**2 / 2)
    fixed = rng.uniform(0.0, fixed_overhead_max, n_sim) * measured
    slope = (measured - fixed) / cost.units
    at_units = fixed + slope * units
    with np.errstate(divide="ignore", invalid="ignore"):
        cap = np.where(slope > 0, (threshold * limit_cores - fixed) / slope, np.inf)
    a = (1 - level) / 2
    central = cost.cpu_cores_per_unit * units
    central_cap = threshold * limit_cores / cost.cpu_cores_per_unit
    method = (f"simulated: fixed overhead uniform 0-{100 * fixed_overhead_max:.0f}% of the measured usage, "
              f"{100 * noise_cv:.0f}% log-normal measurement noise ({n_sim} draws, equal tails)")
    note = "assumed, not measured: one load level"
    cpu_lo, cpu_hi = map(float, np.quantile(at_units, [a, 1 - a]))
    cap_lo, cap_hi = map(float, np.quantile(cap, [a, 1 - a]))
    return CapacityProjection(
        variant=cost.variant, units=units,
        cpu_cores=Estimate(central, cpu_lo, cpu_hi, level, method, None, 1, "cores", note),
        cpu_pct_of_limit=100.0 * central / limit_cores,
        capacity_units=Estimate(central_cap, cap_lo, cap_hi, level, method, None, 1, "units", note),
        threshold=threshold, limit_cores=limit_cores,
        memory_bytes=cost.memory_bytes_per_unit * units if cost.memory_bytes_per_unit is not None else None,
        assumption=(
            f"one load level: usage linear in units through the origin (central value); interval from a fixed "
            f"overhead of 0-{100 * fixed_overhead_max:.0f}% of the measured usage and {100 * noise_cv:.0f}% "
            f"measurement noise (assumed, not measured)"
        ),
        _parameters={"units": units, "limit_cores": limit_cores, "threshold": threshold,
                     "fixed_overhead_max": fixed_overhead_max, "noise_cv": noise_cv, "n_sim": n_sim, "seed": seed,
                     "level": level},
    )


def compare_variants(before: CapacityProjection, after: CapacityProjection,
                     before_cost: UnitCost, after_cost: UnitCost, *, noise_cv: float = 0.10,
                     level: float = 0.95) -> VariantComparison:
    """Change from ``before`` to ``after``: CPU and memory per unit, capacity.

    ``cpu_change`` and ``capacity_change`` carry intervals from an *assumed* measurement noise of ``noise_cv`` per
    variant (one profile each: nothing measures run-to-run noise), so they have no p-value and say so.
    """
    mem = None
    if before_cost.memory_bytes_per_unit and after_cost.memory_bytes_per_unit is not None:
        mem = 100 * (after_cost.memory_bytes_per_unit / before_cost.memory_bytes_per_unit - 1)
    return VariantComparison(
        before=before.variant, after=after.variant,
        cpu_change_pct=100 * (after_cost.cpu_cores_per_unit / before_cost.cpu_cores_per_unit - 1),
        memory_change_pct=mem,
        capacity_change_pct=100 * (after.capacity_units.value / before.capacity_units.value - 1),
        capacity_ratio=after.capacity_units.value / before.capacity_units.value,
        cpu_change=_ratio_estimate(after_cost.cpu_cores_per_unit / before_cost.cpu_cores_per_unit, noise_cv, level),
        capacity_change=_ratio_estimate(after.capacity_units.value / before.capacity_units.value, noise_cv, level),
    )


def _ratio_estimate(ratio: float, noise_cv: float, level: float) -> Estimate:
    from scipy import stats

    h = stats.norm.ppf(1 - (1 - level) / 2) * math.sqrt(2) * math.sqrt(math.log1p(noise_cv**2))
    return Estimate(100 * (ratio - 1), 100 * (ratio * math.exp(-h) - 1), 100 * (ratio * math.exp(h) - 1), level,
                    "ratio of one measurement per variant", None, 2, "pct",
                    f"interval from an assumed {100 * noise_cv:.0f}% measurement noise per variant (one measurement "
                    f"each: run-to-run noise not measured, no test); replicate each variant to measure it")


def projection_curve(cost: UnitCost, units: np.ndarray, **kwargs) -> pl.DataFrame:
    """Projected CPU (cores) with interval over a range of units, for charts."""
    rows = []
    for u in np.asarray(units, float):
        p = project_capacity(cost, units=float(u), **kwargs)
        rows.append({"variant": cost.variant, "units": float(u), "cpu_cores": p.cpu_cores.value,
                     "cpu_cores_low": p.cpu_cores.low, "cpu_cores_high": p.cpu_cores.high})
    return pl.DataFrame(rows)


def fit_load_levels(load, usage, *, level: float = 0.95) -> LoadFit:
    """Least-squares ``usage = fixed + per_unit x load`` over three or more load levels."""
    x = np.asarray(load, float)
    y = np.asarray(usage, float)
    n = len(x)
    if n < 3 or np.unique(x).size < 2:
        raise ValueError("need at least 3 measurements at 2 or more load levels")
    X = np.column_stack([np.ones(n), x])
    coef, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - X @ coef
    df = n - 2
    s = math.sqrt(float(resid @ resid) / df)
    xtx_inv = np.linalg.inv(X.T @ X)
    se = s * np.sqrt(np.diag(xtx_inv))
    q = stats.t.ppf(1 - (1 - level) / 2, df)
    return LoadFit(
        fixed=float(coef[0]), fixed_ci=ConfidenceInterval(float(coef[0] - q * se[0]), float(coef[0] + q * se[0])),
        per_unit=float(coef[1]),
        per_unit_ci=ConfidenceInterval(float(coef[1] - q * se[1]), float(coef[1] + q * se[1])),
        residual_sd=s, df=df, n=n, level=level, _xtx_inv=tuple(map(tuple, xtx_inv)), _mean_load=float(x.mean()),
    )
