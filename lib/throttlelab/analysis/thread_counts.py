"""Thread counts: the best explicit thread count per CPU limit, and ``auto`` against it.

Per (workload, contention) group, every (limit, threads) cell is compared on
the log scale with one noise level estimated from all replicated cells (or
an assumed prior when nothing is replicated; see
:mod:`throttlelab.analysis.noise`).

Per limit:

* ``best_threads``: the explicit thread count with the lowest geometric-mean
  time, with the interval of that time;
* ``near_best_threads``: explicit counts not significantly slower than the
  best (one-sided t-test at ``alpha``): the data cannot tell them apart;
* ``auto`` against the best explicit count: time ratio in %, its interval and
  a two-sided p-value that pay for choosing the best count after looking
  (:func:`selection_adjusted`: the null is simulated with the best re-picked
  in every draw); with no replicated cell: too few to decide, no p-value;
* ``probability_best``: for each explicit count, the share of bootstraps over
  runs in which it is the fastest (:mod:`~throttlelab.analysis.selection`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats

from throttlelab.analysis.noise import PRIOR_CV, NoiseModel, estimate_effects
from throttlelab.analysis.prepare import group_label, iter_groups
from throttlelab.analysis.recommend import expected_time
from throttlelab.analysis.response_metric import RESPONSE_METRICS, ResponseMetric, resolve
from throttlelab.analysis.selection import best_choice
from throttlelab.results import ConfidenceInterval



def _nulls_as_float(df: pl.DataFrame) -> pl.DataFrame:
    """Columns that came out all-null (e.g. no ``auto`` runs) as Float64, so tables keep one schema."""
    return df.with_columns(pl.col(c).cast(pl.Float64) for c, t in df.schema.items() if t == pl.Null)


@dataclass(frozen=True)
class ThreadChoice:
    """Thread counts at one limit: the best explicit count, auto against it, and the recommended count.

    Attributes
    ----------
    limit_cores, limit_label
        The limit (cores; ``null`` = unlimited) and its label.
    best_threads, best_seconds, best_seconds_ci
        The fastest explicit thread count, its geometric-mean cost and interval.
    near_best_threads
        Explicit counts not significantly worse than the best (one-sided t at ``alpha``).
    auto_seconds
        Geometric-mean cost of the ``auto`` runs.
    auto_vs_best_pct, auto_vs_best_ci_pct, auto_vs_best_p_value
        auto against the best explicit count, percent (positive = auto worse), with its selection-adjusted
        interval and p-value (``null``: too few to decide).
    recommended_threads, recommended_seconds, recommended_seconds_ci
        The count to run (auto when it is not worse) with its expected cost and interval.
    core_seconds
        Limit x expected wall time of the recommended count (what a run reserves).
    probability_best
        Explicit count -> share of run bootstraps in which it is the best.
    auto_vs_best_method
        How the auto-vs-best interval was computed, or why there is none.
    """

    limit_cores: float | None
    limit_label: str
    best_threads: str | None
    best_seconds: float | None
    best_seconds_ci: ConfidenceInterval | None
    near_best_threads: tuple[str, ...]
    auto_seconds: float | None
    auto_vs_best_pct: float | None  # (auto / best - 1) x 100: positive = auto slower
    auto_vs_best_ci_pct: ConfidenceInterval | None
    auto_vs_best_p_value: float | None
    recommended_threads: str | None
    recommended_seconds: float | None
    recommended_seconds_ci: ConfidenceInterval | None
    core_seconds: float | None
    probability_best: dict[str, float] | None = None  # explicit thread count -> share of run bootstraps it is best
    auto_vs_best_method: str = ""

    def confidence_interval(self) -> ConfidenceInterval | None:
        return self.best_seconds_ci


@dataclass(frozen=True)
class ThreadCountAnalysis:
    """Thread-count analysis of one (workload, contention) group."""

    group: dict
    label: str
    has_explicit_threads: bool
    has_auto: bool
    note: str
    noise: NoiseModel
    alpha: float
    limits: tuple[ThreadChoice, ...]
    cells: pl.DataFrame  # limit x threads: runs, geomean_seconds (heatmap data; costs, see response_metric)
    metric: ResponseMetric = RESPONSE_METRICS["wall_seconds"]

    def table(self) -> pl.DataFrame:
        rows = []
        for c in self.limits:
            rows.append({
                "group": self.label, "limit": c.limit_label, "limit_cores": c.limit_cores,
                "best_threads": c.best_threads, "best_seconds": c.best_seconds,
                "best_seconds_ci_low": c.best_seconds_ci.low if c.best_seconds_ci else None,
                "best_seconds_ci_high": c.best_seconds_ci.high if c.best_seconds_ci else None,
                "near_best_threads": ", ".join(c.near_best_threads),
                "auto_seconds": c.auto_seconds, "auto_vs_best_pct": c.auto_vs_best_pct,
                "auto_vs_best_ci_low_pct": c.auto_vs_best_ci_pct.low if c.auto_vs_best_ci_pct else None,
                "auto_vs_best_ci_high_pct": c.auto_vs_best_ci_pct.high if c.auto_vs_best_ci_pct else None,
                "auto_vs_best_p_value": c.auto_vs_best_p_value,
                "probability_best": ", ".join(f"{k}: {v:.0%}" for k, v in sorted(
                    (c.probability_best or {}).items(), key=lambda kv: -kv[1])),
            })
        return _nulls_as_float(pl.DataFrame(rows, schema_overrides={"best_threads": pl.String}))

    def recommendations(self) -> pl.DataFrame:
        """Recommendation table: limit, threads, expected time with interval, core-seconds."""
        rows = [{
            "group": self.label, "limit": c.limit_label, "limit_cores": c.limit_cores, "threads": c.recommended_threads,
            "expected_seconds": c.recommended_seconds,
            "expected_seconds_ci_low": c.recommended_seconds_ci.low if c.recommended_seconds_ci else None,
            "expected_seconds_ci_high": c.recommended_seconds_ci.high if c.recommended_seconds_ci else None,
            "core_seconds": c.core_seconds,
        } for c in self.limits]
        return _nulls_as_float(pl.DataFrame(rows, schema_overrides={"threads": pl.String}))


def analyse_thread_counts(runs: pl.DataFrame, *, alpha: float = 0.05, prior_cv: float = PRIOR_CV,
                          level: float = 0.95, metric: str | ResponseMetric | None = None) -> list[ThreadCountAnalysis]:
    """Thread-count analysis per (workload, contention) group of prepared runs.

    ``metric``: the response metric the runs were prepared with
    (:func:`~throttlelab.analysis.prepare.prepare_runs`); ``None`` reads it from
    the runs' ``metric`` column.  "Best" is then the best of that metric (highest
    throughput, lowest latency); ``*_seconds`` fields hold costs (see
    :mod:`throttlelab.analysis.response_metric`).
    """
    m = _prepared_metric(runs, metric)
    out = []
    for group, frame in iter_groups(runs, ("workload", "contention")):
        cells = (
            frame.group_by("limit_label", "limit_order", "cpu_limit_cores", "limit_x", "threads")
            .agg(pl.len().alias("runs"), pl.col("log_wall").mean().alias("mean_log"))
            .with_columns(pl.col("mean_log").exp().alias("geomean_seconds"),
                          pl.col("threads").str.contains(r"^\d+$").alias("explicit"))
            .sort("limit_order", "threads")
        )
        codes = {k: i for i, k in enumerate(zip(cells["limit_order"], cells["threads"]))}
        cell_idx = np.array([codes[k] for k in zip(frame["limit_order"], frame["threads"])], float)
        noise = estimate_effects(cell_idx, frame["log_wall"].to_numpy(), prior_cv=prior_cv).noise
        has_explicit = bool(cells["explicit"].any())
        has_auto = bool((cells["threads"] == "auto").any())
        note = ""
        if not has_explicit:
            note = ("only `auto` thread counts in these runs: no explicit thread count to compare; "
                    "run a sweep with explicit threads (e.g. 1, 2, 4, 8) to answer this question")
        elif noise.assumption_based:
            note = noise.note
        choices = tuple(
            _choice(sub, noise, alpha, level, frame.filter(pl.col("limit_order") == key[0]), seed=i)
            for i, (key, sub) in enumerate(sorted(cells.partition_by("limit_order", as_dict=True).items(),
                                                  key=lambda kv: kv[0][0]))
        )
        out.append(ThreadCountAnalysis(
            group=group, label=group_label(group), has_explicit_threads=has_explicit, has_auto=has_auto, note=note,
            noise=noise, alpha=alpha, limits=choices,
            cells=cells.select("limit_label", "limit_order", "cpu_limit_cores", "threads", "explicit", "runs",
                               "geomean_seconds"),
            metric=m,
        ))
    return out


def _prepared_metric(runs: pl.DataFrame, metric: str | ResponseMetric | None) -> ResponseMetric:
    """The metric of prepared runs; ``ValueError`` if ``metric`` is not the one they were prepared with."""
    prepared = runs["metric"].unique().to_list() if "metric" in runs.columns and runs.height else []
    if metric is None:
        return resolve(prepared[0] if len(prepared) == 1 else None)
    m = resolve(metric)
    if prepared and prepared != [m.name]:
        raise ValueError(f"runs were prepared for {', '.join(map(str, prepared))}, not {m.name}: "
                         f"call prepare_runs(..., metric={m.name!r})")
    return m


def selection_adjusted(d: float, n_auto: int, n_explicit: list[int], noise: NoiseModel, level: float, *,
                       n_sim: int = 20000, seed: int = 0) -> tuple[ConfidenceInterval, float]:
    """Interval and two-sided p-value of ``auto - best explicit`` (log scale) that pay for picking the best.

    Under "auto and every explicit count are equally fast" the difference to the *fastest looking* explicit count is
    biased upwards; its studentised null distribution ``(auto* - min_k explicit*_k) / s*`` is simulated (unit
    noise, ``s*`` a chi-square draw with the noise's degrees of freedom).  The interval ``d - quantiles(D*)`` and the p-value come from the same
    draws, so they agree.
    """
    rng = np.random.default_rng(seed)
    sd = np.ones(n_sim) if not math.isfinite(noise.df) else np.sqrt(rng.chisquare(noise.df, n_sim) / noise.df)
    a = rng.standard_normal(n_sim) / math.sqrt(n_auto)
    e = rng.standard_normal((n_sim, len(n_explicit))) / np.sqrt(np.asarray(n_explicit, float))[None, :]
    tstar = (a - e.min(axis=1)) / sd  # studentised: the measured sigma's own uncertainty is in the draws
    t = d / noise.sigma
    lo_q, hi_q = np.quantile(tstar, [(1 - level) / 2, 1 - (1 - level) / 2])
    ci = ConfidenceInterval(100 * math.expm1(d - noise.sigma * hi_q), 100 * math.expm1(d - noise.sigma * lo_q))
    p = float(min(1.0, 2 * min((np.sum(tstar >= t) + 1) / (n_sim + 1), (np.sum(tstar <= t) + 1) / (n_sim + 1))))
    return ci, p


def _choice(cells: pl.DataFrame, noise: NoiseModel, alpha: float, level: float, runs: pl.DataFrame | None = None, *,
            seed: int = 0) -> ThreadChoice:
    first = cells.row(0, named=True)
    limit_cores, label = first["cpu_limit_cores"], first["limit_label"]
    reserve = first["limit_x"]
    df = noise.df
    tdist = stats.t(df) if math.isfinite(df) else stats.norm()
    explicit = cells.filter(pl.col("explicit")).sort("mean_log")
    auto = cells.filter(pl.col("threads") == "auto")
    best = explicit.row(0, named=True) if explicit.height else None
    a = auto.row(0, named=True) if auto.height else None
    near = ()
    best_ci = None
    if best:
        best_ci = expected_time(best["geomean_seconds"], best["runs"], noise, level)
        near_list = []
        for r in explicit.iter_rows(named=True):
            se = noise.sigma * math.sqrt(1 / r["runs"] + 1 / best["runs"])
            p = 1.0 if r is best else float(tdist.sf((r["mean_log"] - best["mean_log"]) / se))
            if r["threads"] == best["threads"] or p >= alpha or noise.assumption_based:  # no test from a prior
                near_list.append(r["threads"])
        near = tuple(sorted(near_list, key=int))
    pct = ci = p = None
    method = ""
    if best and a:
        d = a["mean_log"] - best["mean_log"]
        pct = 100 * math.expm1(d)
        if noise.assumption_based:
            method = "too few to decide: no replicated cell, run-to-run noise unmeasured (no test from a prior)"
        else:
            ci, p = selection_adjusted(d, a["runs"], explicit["runs"].to_list(), noise, level, seed=seed)
            method = (f"selection-adjusted: auto vs the fastest of {explicit.height} explicit counts, null simulated "
                      f"with the best picked in every draw")
    prob = None
    if best and runs is not None and explicit.height > 1:
        cand = {t: np.exp(runs.filter(pl.col("threads") == t)["log_wall"].to_numpy()) for t in explicit["threads"]}
        prob = best_choice(cand, seed=seed).probability_best
    rec = None
    if best and a:
        rec = a if a["mean_log"] <= best["mean_log"] else best
    else:
        rec = best or a
    rec_ci = expected_time(rec["geomean_seconds"], rec["runs"], noise, level) if rec else None
    return ThreadChoice(
        limit_cores=limit_cores, limit_label=label,
        best_threads=best["threads"] if best else None, best_seconds=best["geomean_seconds"] if best else None,
        best_seconds_ci=best_ci, near_best_threads=near,
        auto_seconds=a["geomean_seconds"] if a else None, auto_vs_best_pct=pct, auto_vs_best_ci_pct=ci,
        auto_vs_best_p_value=p,
        recommended_threads=rec["threads"] if rec else None,
        recommended_seconds=rec["geomean_seconds"] if rec else None, recommended_seconds_ci=rec_ci,
        core_seconds=(reserve * rec["geomean_seconds"]) if (rec and reserve is not None) else None,
        probability_best=prob, auto_vs_best_method=method,
    )
