"""Fits of the scaling models to throughput or run time against CPU (cores, limit, processors).

Models: :mod:`~throttlelab.analysis.limits.scaling_models` (``usl``, ``amdahl``, ``quota``).

Fitting
-------
Least squares with bounds (``scipy.optimize.least_squares``).
:func:`fit_usl` fits throughput on the linear scale, exactly like the R
package ``usl`` and usl4j, and reproduces their published coefficients;
:func:`fit_runtime_models` fits run times on the log scale (relative errors:
times span orders of magnitude and their noise is multiplicative).
Intervals: run-time fits get profile-likelihood intervals
(:mod:`~throttlelab.analysis.stats.profile_intervals`; a parameter at a bound is a
warning); :func:`fit_usl` keeps asymptotic (t with the Jacobian's standard
errors, as R's ``usl``) and, when ``n_boot > 0``, seeded residual-bootstrap
intervals.  The bootstrap draws also give the curve bands.  Models
are compared by AIC and AICc (:mod:`~throttlelab.analysis.stats.information_criteria`: ``k + 1``
parameters, the error variance counted).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import least_squares

from throttlelab.core.ordering import order_by_score
from throttlelab.analysis.stats import aic, aicc, residual_bootstrap
from throttlelab.analysis.stats import bound_warnings, profile_interval
from throttlelab.analysis.limits.scaling_models import MODEL_ORDER, MODELS, ScalingFit, USLFit, usl_throughput
from throttlelab.results import ConfidenceInterval


def fit_usl(n, throughput, *, n_boot: int = 0, seed: int = 0, level: float = 0.95) -> USLFit:
    """Fit the USL to throughput measurements (linear least squares, bounded like R's ``usl``).

    Parameters
    ----------
    n
        Load, processors or cores (> 0).
    throughput
        Measured throughput at each ``n``.
    n_boot
        Residual-bootstrap refits for intervals (0: asymptotic intervals only).
    """
    n, x = _arrays(n, throughput)
    start = [0.01, 1e-4, float(np.max(x / n))]
    lower, upper = (0, 0, 0), (1, 1, np.inf)

    def solve(y, x0=start):
        r = least_squares(lambda p: usl_throughput(n, *p) - y, x0, bounds=(lower, upper), x_scale="jac",
                          xtol=1e-14, ftol=1e-14, gtol=1e-14, max_nfev=20000)
        return r

    r = solve(x)
    fit = _finish("usl", ("alpha", "beta", "gamma"), r, n, x, "throughput", level, n_boot, seed,
                  lambda y: solve(y, r.x).x, fitted=usl_throughput(n, *r.x), resid_scale="linear")
    out = USLFit(**{k: getattr(fit, k) for k in fit.__dataclass_fields__}, alpha=float(r.x[0]),
                 beta=float(r.x[1]), gamma=float(r.x[2]))
    object.__setattr__(out, "_boot_draws", fit._boot)
    return out


def fit_runtime_model(model: str, cores, seconds, *, n_boot: int = 200, seed: int = 0,
                      level: float = 0.95) -> ScalingFit:
    """Fit one model (``amdahl``, ``usl``, ``quota``) to run times, least squares on log time."""
    m = MODELS[model]
    n, t = _arrays(cores, seconds)
    logt = np.log(t)

    def resid(p, y):
        with np.errstate(all="ignore"):
            pred = m.time(n, *p)
        out = np.log(np.where(pred > 0, pred, 1e-300)) - y
        return np.where(np.isfinite(out), out, 1e6)

    starts = _starts(model, n, t)

    def solve(y, starts=starts):
        best = None
        for x0 in starts:
            x0 = np.clip(x0, np.add(m.lower, 1e-9), np.subtract(m.upper, 1e-9) if model == "usl" else np.inf)
            r = least_squares(resid, x0, args=(y,), bounds=(m.lower, m.upper), x_scale="jac", max_nfev=5000)
            if best is None or r.cost < best.cost:
                best = r
        return best

    r = solve(logt)
    # Bootstrap refits start from the full fit (and one generic start) to stay fast.
    fit = _finish(model, m.params, r, n, logt, "time", level, n_boot, seed, lambda y: solve(y, [r.x, starts[0]]).x,
                  fitted=np.log(m.time(n, *r.x)), resid_scale="log")
    # Profile-likelihood intervals (they cover where bootstrap percentiles at a bound do not; bench_stats).
    lower, upper = np.asarray(m.lower, float), np.asarray(m.upper, float)
    warnings = bound_warnings(m.params, r.x, lower, upper)
    intervals = {}
    for i, name in enumerate(m.params):
        lo, hi, notes = profile_interval(lambda p: resid(p, logt), r.x, i, lower, upper, fit.rss, fit.df_resid, level)
        intervals[name] = ConfidenceInterval(lo, hi)
        warnings += [f"{name}: {t}" for t in notes]
    object.__setattr__(fit, "intervals", intervals)
    object.__setattr__(fit, "interval_method", "profile likelihood")
    object.__setattr__(fit, "warnings", tuple(warnings))
    return fit


def fit_runtime_models(cores, seconds, *, models=("amdahl", "usl", "quota"), n_boot: int = 200, seed: int = 0,
                       level: float = 0.95) -> list[ScalingFit]:
    """Fit several models to the same run times, sorted by AIC (best first; :func:`rank_fits`)."""
    fits = [fit_runtime_model(m, cores, seconds, n_boot=n_boot, seed=seed, level=level) for m in models]
    return rank_fits(fits)


#: AICs closer than this are a tie: fits that coincide differ by about 1e-13 with the CPU and the BLAS threads,
#: while a difference that means anything is above 0.1.
AIC_TIE = 1e-6


def rank_fits(fits: list[ScalingFit]) -> list[ScalingFit]:
    """Fits by AIC, best first; fits whose AICs tie (within :data:`AIC_TIE`) in the models' fixed order
    (:data:`~throttlelab.analysis.limits.scaling_models.MODEL_ORDER`), whatever order they came in."""
    fixed = sorted(fits, key=lambda f: (MODEL_ORDER.index(f.model) if f.model in MODEL_ORDER else len(MODEL_ORDER),
                                        f.model))
    return order_by_score(fixed, lambda f: f.aic, rel_tol=0.0, abs_tol=AIC_TIE)


def _arrays(n, y):
    n = np.asarray(n, float)
    y = np.asarray(y, float)
    ok = np.isfinite(n) & np.isfinite(y) & (n > 0) & (y > 0)
    if ok.sum() < 3:
        raise ValueError(f"need at least 3 positive points to fit, got {int(ok.sum())}")
    return n[ok], y[ok]


def _starts(model: str, n: np.ndarray, t: np.ndarray) -> list[list[float]]:
    tmin, t1 = float(t.min()), float(t[np.argmin(n)] * n.min())
    if model == "amdahl":
        return [[0.5 * tmin, t1], [0.05 * tmin, t1], [0.9 * tmin, 0.5 * t1]]
    if model == "usl":
        g = 1.0 / t1
        return [[0.01, 1e-4, g], [0.1, 1e-3, g], [0.5, 1e-2, g]]
    uniq = np.unique(n)
    return [[t1, float(p), 0.1 * tmin] for p in uniq[1:]] + [[t1, float(uniq.max()) * 2, 0.0]]


def _finish(model, names, r, n, y, response, level, n_boot, seed, refit, *, fitted, resid_scale) -> ScalingFit:
    npt, k = len(y), len(names)
    resid = y - fitted
    rss = float(resid @ resid)
    df = npt - k
    sigma2 = rss / df if df > 0 else math.nan
    Jac = r.jac
    try:
        cov = np.linalg.inv(Jac.T @ Jac) * sigma2
        se = np.sqrt(np.clip(np.diag(cov), 0, None))
    except np.linalg.LinAlgError:
        se = np.full(k, math.nan)
    params = {nm: float(v) for nm, v in zip(names, r.x)}
    boot = None
    if n_boot > 0:
        boot = residual_bootstrap(lambda yy: refit(yy), fitted, resid, n_boot=n_boot, seed=seed, n_params=k)
    fit = ScalingFit(model=model, parameters=params, standard_errors=dict(zip(names, map(float, se))),
                     response=response, n=npt, df_resid=df, rss=rss, aic=aic(rss, npt, k), aicc=aicc(rss, npt, k),
                     level=level,
                     intervals={}, interval_method="bootstrap" if boot is not None else "asymptotic",
                     n_boot=n_boot)
    object.__setattr__(fit, "_boot_draws", boot)
    object.__setattr__(fit, "intervals", fit.confidence_interval())
    return fit
