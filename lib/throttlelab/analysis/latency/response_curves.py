"""Response time against a noisy neighbour's CPU share: queueing-style fits.

Fits (:func:`fit_response_curve`) of response time ``R`` against the
neighbour's share ``x`` of the node (available CPU ``cores * (1 - x)``):

``hyperbolic``
    ``R = a + b / (c - x)``: a floor plus a term that blows up at ``x = c``
    (``c`` is where the available CPU would no longer keep up).
``mm1``
    M/M/1-like, ``R = S / (1 - rho)`` with ``rho = lambda * S / (C * (1 - x))``:
    ``S`` the service time, ``C`` the effective cores the target can use,
    ``lambda`` the known request rate of each point (fitted jointly over rates).

The *knee* (where the curve takes off) is the Kneedle point of the fitted
curve over the observed range: where its slope equals the average slope over
the range (the point farthest below the chord).  ``doubling`` is the share at
which the fitted time reaches twice the fitted no-contention time.  Intervals
come from the seeded bootstrap of :mod:`throttlelab.analysis.stats.bootstrap`: residual
resampling for summary points (centred residuals rescaled for the fitted
parameters, as for the scaling fits), request resampling for measured
requests (:func:`fit_from_requests`).  The models and
the least-squares fit are :mod:`.response_curve_models`.
:func:`analyse_measured` gathers what notebook 05 shows for measured requests.

The paper's table 1 itself is rebuilt in :mod:`throttlelab.analysis.latency.contention_paper`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from throttlelab.analysis.latency.response_curve_models import MODELS, fit_params, knee_doubling_pole
from throttlelab.analysis.stats import aicc, bootstrap_refits, percentile_interval, residual_draw
from throttlelab.results import ConfidenceInterval, Estimate, Fit


@dataclass(frozen=True)
class ResponseCurveFit:
    """A fitted response-time curve ``R(x)`` and where it takes off.

    Attributes
    ----------
    model
        ``hyperbolic`` or ``mm1`` (see module docstring).
    params, param_low, param_high
        Fitted parameters and their bootstrap intervals (by name).
    knee
        Kneedle knee of the fitted curve over the observed range (share of the node, 0-1).
    doubling
        Share where the fitted R reaches 2 x R(0); NaN if not before the curve's pole.
    pole
        Share where the fitted R diverges (NaN if none before 1).
    rss, aicc, r2
        Residual sum of squares (s^2), AICc (:func:`~throttlelab.analysis.stats.information_criteria.aicc`:
        Gaussian errors, the error variance counted; ``None`` with too few points) and R^2 of the fit;
        ``n`` points, ``x_max`` the largest share observed.
    note
        Caveats (failed bootstrap refits, extrapolation).
    """

    model: str
    params: dict[str, float]
    param_low: dict[str, float]
    param_high: dict[str, float]
    knee: Estimate
    doubling: Estimate
    pole: Estimate
    rss: float
    aicc: float | None
    r2: float
    n: int
    x_max: float
    load: float | None = None
    note: str = ""
    _lam: float = field(default=0.0, repr=False)

    def predict(self, x: np.ndarray, load: float | None = None) -> np.ndarray:
        """Fitted response time (s) at shares ``x`` (and request rate ``load`` for ``mm1``)."""
        fn, names = MODELS[self.model]
        lam = self._lam if load is None else load
        y = fn(np.asarray(x, float), lam, *(self.params[n] for n in names))
        return np.where(y >= 1e6, np.nan, y)

    def confidence_interval(self) -> ConfidenceInterval:
        """Interval of the knee."""
        return self.knee.confidence_interval()

    def as_fit(self) -> Fit:
        """The fit as the shared :class:`~throttlelab.results.Fit` (knee, doubling and pole as derived estimates)."""
        intervals = {k: (self.param_low[k], self.param_high[k]) for k in self.params}
        return Fit.of(self.model, self.params, intervals, level=self.knee.level, method=self.knee.method,
                      goodness={"rss": self.rss, "aicc": self.aicc, "r_squared": self.r2}, n=self.n,
                      warnings=tuple(w for w in self.note.split("; ") if w),
                      derived={"knee": self.knee, "doubling": self.doubling, "pole": self.pole}, n_samples=self.n)

    @property
    def level(self) -> float:
        """Confidence level of its intervals (the knee's)."""
        return self.knee.level




def fit_response_curve(x, y, *, model: str = "hyperbolic", load=None, n_boot: int = 300, level: float = 0.95,
                       seed: int = 0, resample=None) -> ResponseCurveFit:
    """Fit ``R(x)`` to points (share ``x`` in 0-1, response time ``y`` in s).

    Parameters
    ----------
    load
        Request rate (requests/s) of each point: a scalar or an array (needed by ``mm1``).
    resample
        Optional callable ``rng -> y*`` giving a bootstrap replicate of ``y`` (e.g.
        from resampled requests).  Default: resample the fit's residuals.
    """
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; known: {', '.join(MODELS)}")
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    lam = np.broadcast_to(np.asarray(0.0 if load is None else load, float), x.shape).astype(float)
    if x.size < len(MODELS[model][1]) + 1:
        raise ValueError(f"{model} fit needs at least {len(MODELS[model][1]) + 1} points, got {x.size}")
    fn, names = MODELS[model]
    p = fit_params(model, x, lam, y)
    fitted = fn(x, lam, *p)
    resid = y - fitted
    rss = float(np.sum(resid ** 2))
    k, n = len(p), x.size
    r2 = 1 - rss / float(np.sum((y - y.mean()) ** 2)) if n > 1 else np.nan
    lam_ref = float(np.mean(lam))
    x_max = float(np.max(x))
    knee, doubling, pole = knee_doubling_pole(model, p, lam_ref, x_max)

    def refit(y_star: np.ndarray) -> list[float] | None:
        try:
            pb = fit_params(model, x, lam, y_star, p0=p)
        except RuntimeError:
            return None
        d = list(knee_doubling_pole(model, pb, lam_ref, x_max))
        if model == "hyperbolic" and (pb[2] >= 9.9 or pb[2] <= x_max + 2e-3):
            d[0] = np.nan
        return [*pb, *d]

    draw = resample if resample is not None else residual_draw(fitted, resid, k)
    rows = bootstrap_refits(refit, draw, n_boot=n_boot, seed=seed, width=k + 3)
    boots = rows[~np.isnan(rows).all(axis=1)]  # the refits that converged (their parameters are finite)
    failed = n_boot - len(boots)
    nan = float("nan")

    def ci(col: int) -> tuple[float, float]:
        # an interval only when most refits give the quantity (a knee is undefined in refits without take-off)
        if np.isfinite(boots[:, col]).sum() <= 0.5 * len(boots):
            return nan, nan
        return tuple(percentile_interval(boots[:, col], level))

    notes = []
    if model == "hyperbolic" and p[2] >= 9.9:
        knee = float("nan")
        notes.append("no take-off: the fitted pole sits at its bound (the curve is nearly straight), so no knee")
    elif model == "hyperbolic" and p[2] <= x_max + 2e-3:
        knee = float("nan")
        notes.append("degenerate fit: the pole sits on the largest observed share (one point drives it), so no knee")
    method = (f"{model} fit, percentile bootstrap ({n_boot} refits of "
              f"{'resampled requests' if resample is not None else 'resampled residuals'})")
    est = [Estimate(val, *(ci(k + i) if np.isfinite(val) else (nan, nan)), level, method, unit="share", n_samples=n)
           for i, val in enumerate((knee, doubling, pole))]
    if failed:
        notes.append(f"{failed} of {n_boot} bootstrap refits failed")
    if np.isfinite(doubling) and doubling > x_max:
        notes.append(f"doubling share {doubling:.2f} is an extrapolation beyond the observed {x_max:.2f}")
    return ResponseCurveFit(
        model, dict(zip(names, map(float, p))), {nm: ci(i)[0] for i, nm in enumerate(names)},
        {nm: ci(i)[1] for i, nm in enumerate(names)}, *est, rss, aicc(rss, n, k), float(r2), int(n), x_max,
        None if load is None or np.ndim(load) else float(load), "; ".join(notes), lam_ref)


def fit_summary(points: pl.DataFrame, *, x: str = "contention", y: str = "mean_latency_seconds", by: str | None = "load",
                models: tuple[str, ...] = ("hyperbolic", "mm1"), n_boot: int = 300, seed: int = 0) -> tuple[pl.DataFrame, dict]:
    """Fit every model per value of ``by`` and pooled over all points; return a table and the fits.

    The table has one row per (model, group): group (``load`` value or ``"all"``),
    params, knee/doubling/pole with intervals, rss, aicc, r2, n.  ``mm1`` uses the
    ``load`` column as the request rate, so the pooled ``mm1`` fit shares ``S``
    and ``C`` across rates.
    """
    groups: list[tuple[str, pl.DataFrame]] = []
    if by and by in points.columns:
        groups += [(str(v), points.filter(pl.col(by) == v)) for v in sorted(points[by].unique().to_list())]
    groups.append(("all", points))
    fits, rows = {}, []
    for name, g in groups:
        for m in models:
            lam = g["load"].to_numpy() if "load" in g.columns else None
            try:
                f = fit_response_curve(g[x].to_numpy(), g[y].to_numpy(), model=m, load=lam, n_boot=n_boot, seed=seed)
            except (RuntimeError, ValueError) as exc:
                rows.append({"model": m, "group": name, "note": f"no fit: {exc}"})
                continue
            fits[(m, name)] = f
            rows.append(fit_row(f) | {"group": name})
    return pl.DataFrame(rows, infer_schema_length=None), fits


def fit_row(f: ResponseCurveFit) -> dict:
    """One flat table row of a fit."""
    row = {"model": f.model}
    for k, v in f.params.items():
        row |= {k: v, f"{k}_low": f.param_low[k], f"{k}_high": f.param_high[k]}
    for nm in ("knee", "doubling", "pole"):
        e: Estimate = getattr(f, nm)
        row |= {nm: e.value, f"{nm}_low": e.low, f"{nm}_high": e.high}
    return row | {"rss": f.rss, "aicc": f.aicc, "r2": f.r2, "n": f.n, "note": f.note}


def fit_from_requests(requests: pl.DataFrame, *, model: str = "hyperbolic", stat: str = "mean", x: str = "contention",
                      n_boot: int = 200, seed: int = 0) -> ResponseCurveFit:
    """Fit the curve to per-level statistics of answered requests; bootstrap by resampling requests.

    ``requests`` should hold one load (and one config); ``stat`` is ``mean`` or a
    percentile name (``p95`` ...).
    """
    from throttlelab.analysis.latency.latency import statistic

    ok = requests.filter((pl.col("status") == "ok") & pl.col("latency_seconds").is_not_null())
    levels = sorted(ok[x].unique().to_list())
    samples = [ok.filter(pl.col(x) == lv)["latency_seconds"].to_numpy() for lv in levels]
    y = np.array([statistic(s, stat) for s in samples])
    lam = np.array([ok.filter(pl.col(x) == lv)["load"].mean() if "load" in ok.columns else 0.0 for lv in levels], float)

    def resample(rng):
        return np.array([statistic(s[rng.integers(0, s.size, s.size)], stat) for s in samples])

    return fit_response_curve(np.array(levels, float), y, model=model, load=lam, n_boot=n_boot, seed=seed, resample=resample)


def analyse_measured(requests: pl.DataFrame, *, n_boot: int = 200, seed: int = 0, model: str = "hyperbolic") -> dict:
    """Everything notebook 05 shows for measured requests.

    Returns a dict of tables: ``summary`` (per config/load/share/workers, with
    intervals), ``inflation_mean`` and ``inflation_p95`` (vs share 0), ``fits`` (one
    row per config and load: knee, doubling, pole with intervals; "not enough
    data" notes where a fit is impossible), the fit objects ``fit_objects`` (by model and load, for charts) and
    ``fit_by_group`` (by config and load).
    """
    from throttlelab.analysis.latency.latency import inflation_vs_baseline, summarize_latency

    by = ["config", "load", "contention", "neighbour_workers"]
    summary = summarize_latency(requests, by, n_boot=n_boot, seed=seed)
    workers_default = requests.filter(pl.col("contention") > 0)["neighbour_workers"].drop_nulls()
    main_workers = int(workers_default.mode().sort()[0]) if workers_default.len() else None
    # The share sweep: share 0 plus the most common neighbour worker count.
    sweep = requests.filter((pl.col("contention") == 0) | (pl.col("neighbour_workers") == main_workers)
                            | pl.col("neighbour_workers").is_null())
    inf_mean = inflation_vs_baseline(sweep, by=("config", "load"), stat="mean", n_boot=n_boot, seed=seed)
    inf_p95 = inflation_vs_baseline(sweep, by=("config", "load"), stat="p95", n_boot=n_boot, seed=seed)
    rows, objs, by_group = [], {}, {}
    for (config, load), g in sweep.partition_by(["config", "load"], as_dict=True, maintain_order=True).items():
        levels = g.filter(pl.col("status") == "ok")["contention"].n_unique()
        if levels < 4:
            rows.append({"config": config, "load": load, "model": model,
                         "note": f"not enough data to decide: {levels} contention levels (a fit needs 4)"})
            continue
        try:
            f = fit_from_requests(g, model=model, n_boot=n_boot, seed=seed)
        except (RuntimeError, ValueError) as exc:
            rows.append({"config": config, "load": load, "model": model, "note": f"no fit: {exc}"})
            continue
        objs[(model, f"{load:g}")] = f
        by_group[(config, load)] = f
        rows.append({"config": config, "load": load} | fit_row(f))
    return {"summary": summary, "inflation_mean": inf_mean, "inflation_p95": inf_p95,
            "fits": pl.DataFrame(rows, infer_schema_length=None), "fit_objects": objs, "fit_by_group": by_group,
            "neighbour_workers": main_workers}


def inflation_headline(inflation_mean: pl.DataFrame) -> str | None:
    """Mean response-time inflation at the highest neighbour share, per load, as one line."""
    if not inflation_mean.height:
        return None
    top = inflation_mean.filter(pl.col("contention") == inflation_mean["contention"].max()).sort("load")
    def run_part(r: dict) -> str:
        if r.get("run_verdict") is None:
            return ""
        if r["run_change_low"] is None:
            return f", runs: {r['run_verdict']} ({r['runs']} vs {r['runs_baseline']} run(s))"
        return (f", runs: {r['run_change_percent']:+.0f}% [{r['run_change_low']:+.0f}, {r['run_change_high']:+.0f}] "
                f"{r['run_verdict']} ({r['runs']} vs {r['runs_baseline']} runs)")

    parts = [f"{r['percent']:+.0f}% [{r['percent_low']:+.0f}, {r['percent_high']:+.0f}]{run_part(r)} at load {r['load']:g}"
             for r in top.iter_rows(named=True)]
    return (f"Measured mean response time at neighbour share {top['contention'][0]:.0%} vs none: "
            + "; ".join(parts) + " (request-bootstrap CIs describe; the run-level verdict, Welch on log run means "
            "with Bonferroni intervals, decides)")
