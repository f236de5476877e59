"""Active time under a CPU quota: how much of the wall time a request is actually on CPU.

The Go write-up (seed 003) measured, per limit, the time pprof saw on CPU
divided by the real time of the response.  For a single-threaded CPU-bound
handler under a CFS quota of ``s`` cores (``s <= 1``) this share should be
about ``s``: the handler runs ``s x 100 ms`` per 100 ms period and waits the
rest.  :func:`fit_active_time` fits ``active = slope x share`` through the
origin (or with an intercept) and turns it into the implied slowdown factor
``wall / active = 1 / (slope x share)`` against an unthrottled run.

With a runs table that records ``cpu_seconds``, :func:`active_time_from_runs`
gives the same view: ``cpu_seconds / wall_seconds`` (cores actually used)
against the limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats

from throttlelab.results import ConfidenceInterval, Estimate, Fit


@dataclass(frozen=True)
class ActiveTimeFit:
    """``active_over_wall = slope x limit_share (+ intercept)``.

    Attributes
    ----------
    slope, slope_ci
        Active share per unit of limit share (1 = the quota is the only wait).
    intercept, intercept_ci
        0 (and no interval) when fitted through the origin.
    through_origin
        Whether the line was forced through the origin.
    residual_sd, r_squared, n, level
        Fit quality; ``n`` points; confidence level of the intervals.
    """

    slope: float
    slope_ci: ConfidenceInterval
    intercept: float
    intercept_ci: ConfidenceInterval | None
    through_origin: bool
    residual_sd: float
    r_squared: float
    n: int
    level: float

    def confidence_interval(self) -> ConfidenceInterval:
        return self.slope_ci

    def as_fit(self) -> Fit:
        """The fit as the shared :class:`~throttlelab.results.Fit` (``slope``, and ``intercept`` unless forced to 0)."""
        method = "least squares, t interval" + (" (through the origin)" if self.through_origin else "")
        params = {"slope": Estimate(self.slope, self.slope_ci.low, self.slope_ci.high, self.level, method,
                                    n_samples=self.n, unit="active share per limit share")}
        if not self.through_origin and self.intercept_ci is not None:
            params["intercept"] = Estimate(self.intercept, self.intercept_ci.low, self.intercept_ci.high, self.level,
                                           method, n_samples=self.n, unit="active share")
        return Fit("active_share_linear", params, {"r_squared": self.r_squared, "residual_sd": self.residual_sd},
                   self.n, self.level, method)

    def predict(self, share) -> np.ndarray:
        return self.intercept + self.slope * np.asarray(share, float)

    def band(self, share) -> tuple[np.ndarray, np.ndarray]:
        """Pointwise interval of the fitted line (slope uncertainty; through the origin)."""
        s = np.asarray(share, float)
        lo = self.intercept + self.slope_ci.low * s
        hi = self.intercept + self.slope_ci.high * s
        return np.minimum(lo, hi), np.maximum(lo, hi)

    def slowdown_factor(self, share: float) -> tuple[float, ConfidenceInterval]:
        """Implied wall / active time at ``share`` (e.g. 0.128 -> about 8x), with its interval."""
        est = 1.0 / float(self.predict(share))
        lo, hi = self.band(np.array([share]))
        return est, ConfidenceInterval(1.0 / float(hi[0]), 1.0 / float(lo[0]))


def fit_active_time(limit_share, active_over_wall, *, through_origin: bool = True,
                    level: float = 0.95) -> ActiveTimeFit:
    """Least-squares line of active share against limit share (t intervals)."""
    x = np.asarray(limit_share, float)
    y = np.asarray(active_over_wall, float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    n = len(x)
    X = x[:, None] if through_origin else np.column_stack([np.ones(n), x])
    if n <= X.shape[1]:
        raise ValueError(f"need more than {X.shape[1]} points, got {n}")
    coef, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - X @ coef
    df = n - X.shape[1]
    s2 = float(resid @ resid) / df
    cov = np.linalg.inv(X.T @ X) * s2
    q = stats.t.ppf(1 - (1 - level) / 2, df)
    se = np.sqrt(np.diag(cov))
    tss = float(((y - y.mean()) ** 2).sum()) if not through_origin else float((y**2).sum())
    slope_i = 0 if through_origin else 1
    return ActiveTimeFit(
        slope=float(coef[slope_i]),
        slope_ci=ConfidenceInterval(float(coef[slope_i] - q * se[slope_i]), float(coef[slope_i] + q * se[slope_i])),
        intercept=0.0 if through_origin else float(coef[0]),
        intercept_ci=None if through_origin else ConfidenceInterval(float(coef[0] - q * se[0]), float(coef[0] + q * se[0])),
        through_origin=through_origin,
        residual_sd=math.sqrt(s2),
        r_squared=1 - float(resid @ resid) / tss if tss > 0 else math.nan,
        n=n,
        level=level,
    )


def slowdown_table(data: pl.DataFrame, fit: ActiveTimeFit) -> pl.DataFrame:
    """Per limit: observed wall/active factor, the fit's factor with interval, and the naive 1/share."""
    rows = []
    for r in data.iter_rows(named=True):
        est, ci = fit.slowdown_factor(r["limit_share"])
        rows.append({
            "cpu_limit_cores": r["cpu_limit_cores"], "limit_share": r["limit_share"],
            "active_over_wall": r["active_over_wall"], "observed_slowdown": 1 / r["active_over_wall"],
            "fitted_slowdown": est, "fitted_slowdown_ci_low": ci.low, "fitted_slowdown_ci_high": ci.high,
            "quota_only_slowdown": 1 / r["limit_share"],
        })
    return pl.DataFrame(rows)


def active_time_from_runs(runs: pl.DataFrame) -> pl.DataFrame:
    """Cores used (``cpu_seconds / wall_seconds``) against the limit, for limited runs with CPU time.

    Columns: the group keys, ``cpu_limit_cores``, ``wall_seconds``, ``cpu_seconds``,
    ``cores_used``, ``quota_used`` (cores used / limit, 0-1).
    """
    return (
        runs.filter(pl.col("cpu_seconds").is_not_null() & pl.col("cpu_limit_cores").is_not_null())
        .select(
            *[c for c in ("workload", "threads", "contention") if c in runs.columns],
            "cpu_limit_cores", "wall_seconds", "cpu_seconds",
            (pl.col("cpu_seconds") / pl.col("wall_seconds")).alias("cores_used"),
            (pl.col("cpu_seconds") / pl.col("wall_seconds") / pl.col("cpu_limit_cores")).alias("quota_used"),
        )
    )
