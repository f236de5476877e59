"""Thread counts: the best explicit thread count per CPU limit, and ``auto`` against it.

Per (workload, contention) group, every (limit, threads) cell is compared on
the log scale with **the run-to-run noise of its limit**
(:mod:`throttlelab.analysis.thread_noise`: the limit's own replicated cells,
else the log-linear trend of the noise across limits of
:mod:`~throttlelab.analysis.level_noise`, never below the pooled noise).
Outlying runs are flagged against the robust scale of the runs at their limit
(:func:`~throttlelab.analysis.run_level.flag_outliers`), reported and left out.

Per limit:

* ``best_threads``: the explicit thread count with the lowest geometric-mean
  time, with the interval of that time;
* ``near_best_threads``: explicit counts not shown slower than the best; "X is
  slower than the best" is claimed when its studentised gap exceeds the
  simulated largest pairwise gap of equal counts (Tukey-Kramer, the best
  re-picked in every draw: family-wise ``alpha`` per limit), p-values in
  ``worse_than_best_p_values``;
* ``auto`` against the best explicit count: time ratio in %, its interval and
  a two-sided p-value that pay for choosing the best count after looking
  (:func:`selection_adjusted`: the null is simulated with the best re-picked
  in every draw);
* ``probability_best``: for each explicit count, the probability that it is the
  fastest given the limit's noise (:func:`~throttlelab.analysis.selection.posterior_best`).

With no replicated cell in the group: too few to decide, no p-value.  With
zero run-to-run noise (identical replicates: a deterministic metric) the
differences are exact: no interval, no test, and the method says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats

from throttlelab.analysis.noise import PRIOR_CV, NoiseModel, estimate_effects
from throttlelab.analysis.prepare import group_label, iter_groups
from throttlelab.analysis.recommend import expected_estimate
from throttlelab.analysis.response_metric import RESPONSE_METRICS, ResponseMetric, resolve
from throttlelab.analysis.run_level import OutlyingRun, flag_outliers
from throttlelab.analysis.selection import best_choice, posterior_best, worse_than_best
from throttlelab.analysis.thread_noise import ZERO_NOTE, LimitNoise, describe, noise_per_limit
from throttlelab.results import ConfidenceInterval, Estimate

NOISE_MODELS = ("per limit", "pooled")



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
    best_threads, best_seconds
        The fastest explicit thread count and its geometric-mean cost with its interval.
    near_best_threads
        Explicit counts not significantly worse than the best (one-sided t at ``alpha``).
    auto_seconds
        Geometric-mean cost of the ``auto`` runs.
    auto_vs_best
        auto against the best explicit count, percent (positive = auto worse), with its selection-adjusted
        interval and p-value; its ``method`` says how they were computed, or why there are none (too few to decide,
        exact with zero noise); ``null`` without both auto and explicit runs.
    recommended_threads, recommended_seconds
        The count to run (auto when it is not worse) with its expected cost and interval.
    core_seconds
        Limit x expected wall time of the recommended count (what a run reserves).
    probability_best
        Explicit count -> share of run bootstraps in which it is the best.
    worse_than_best_p_values
        Explicit count -> adjusted p-value of "slower than the best" (family-wise over the limit's counts).
    noise_cv_pct, noise_df, noise_source
        This limit's run-to-run noise (percent), its degrees of freedom and where it came from (``own cells``,
        ``trend across limits``, ``pooled across limits``, ``zero``; ``unmeasured`` with no replicated cell).
    """

    limit_cores: float | None
    limit_label: str
    best_threads: str | None
    best_seconds: Estimate | None
    near_best_threads: tuple[str, ...]
    auto_seconds: float | None
    auto_vs_best: Estimate | None  # (auto / best - 1) x 100: positive = auto slower
    recommended_threads: str | None
    recommended_seconds: Estimate | None
    core_seconds: float | None
    probability_best: dict[str, float] | None = None  # explicit thread count -> share of run bootstraps it is best
    worse_than_best_p_values: dict[str, float] | None = None
    noise_cv_pct: float | None = None
    noise_df: float | None = None
    noise_source: str = ""

    def confidence_interval(self) -> ConfidenceInterval | None:
        """Interval of the best explicit count's cost (``None`` without one, NaNs when exact)."""
        return None if self.best_seconds is None else self.best_seconds.confidence_interval()


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
    method: str = ""
    outlying_runs: tuple[OutlyingRun, ...] = ()

    def table(self) -> pl.DataFrame:
        rows = []
        none = Estimate(None, None, None)
        for c in self.limits:
            best, avb = c.best_seconds or none, c.auto_vs_best or none
            rows.append({
                "group": self.label, "limit": c.limit_label, "limit_cores": c.limit_cores,
                "best_threads": c.best_threads, "best_seconds": best.value,
                "best_seconds_ci_low": best.low, "best_seconds_ci_high": best.high,
                "near_best_threads": ", ".join(c.near_best_threads),
                "auto_seconds": c.auto_seconds, "auto_vs_best_pct": avb.value,
                "auto_vs_best_ci_low_pct": avb.low, "auto_vs_best_ci_high_pct": avb.high,
                "auto_vs_best_p_value": avb.p_value,
                "probability_best": ", ".join(f"{k}: {v:.0%}" for k, v in sorted(
                    (c.probability_best or {}).items(), key=lambda kv: -kv[1])),
                "noise_cv_pct": c.noise_cv_pct, "noise_source": c.noise_source,
            })
        return _nulls_as_float(pl.DataFrame(rows, schema_overrides={"best_threads": pl.String}))

    def recommendations(self) -> pl.DataFrame:
        """Recommendation table: limit, threads, expected time with interval, core-seconds."""
        none = Estimate(None, None, None)
        rows = [{
            "group": self.label, "limit": c.limit_label, "limit_cores": c.limit_cores, "threads": c.recommended_threads,
            "expected_seconds": (c.recommended_seconds or none).value,
            "expected_seconds_ci_low": (c.recommended_seconds or none).low,
            "expected_seconds_ci_high": (c.recommended_seconds or none).high,
            "core_seconds": c.core_seconds,
        } for c in self.limits]
        return _nulls_as_float(pl.DataFrame(rows, schema_overrides={"threads": pl.String}))


def analyse_thread_counts(runs: pl.DataFrame, *, alpha: float = 0.05, prior_cv: float = PRIOR_CV,
                          level: float = 0.95, metric: str | ResponseMetric | None = None,
                          noise_model: str = "per limit", n_sim: int = 20000) -> list[ThreadCountAnalysis]:
    """Thread-count analysis per (workload, contention) group of prepared runs.

    ``metric``: the response metric the runs were prepared with
    (:func:`~throttlelab.analysis.prepare.prepare_runs`); ``None`` reads it from
    the runs' ``metric`` column.  "Best" is then the best of that metric (highest
    throughput, lowest latency); ``*_seconds`` fields hold costs (see
    :mod:`throttlelab.analysis.response_metric`).  ``noise_model``: ``"per limit"``
    (default, :mod:`~throttlelab.analysis.thread_noise`) or ``"pooled"`` (one noise
    for all limits, the earlier method); ``n_sim``: draws of the simulated nulls.
    """
    if noise_model not in NOISE_MODELS:
        raise ValueError(f"noise_model must be one of {NOISE_MODELS}, not {noise_model!r}")
    m = _prepared_metric(runs, metric)
    out = []
    for group, frame in iter_groups(runs, ("workload", "contention")):
        frame, flagged, dropped = _drop_outliers(frame)
        cells = (
            frame.group_by("limit_label", "limit_order", "cpu_limit_cores", "limit_x", "threads")
            .agg(pl.len().alias("runs"), pl.col("log_wall").mean().alias("mean_log"))
            .with_columns(pl.col("mean_log").exp().alias("geomean_seconds"),
                          pl.col("threads").str.contains(r"^\d+$").alias("explicit"))
            .sort("limit_order", "threads")
        )
        codes = {k: i for i, k in enumerate(zip(cells["limit_order"], cells["threads"]))}
        cell_idx = np.array([codes[k] for k in zip(frame["limit_order"], frame["threads"])], float)
        log_y = frame["log_wall"].to_numpy()
        noise = estimate_effects(cell_idx, log_y, prior_cv=prior_cv).noise
        orders = sorted(set(cells["limit_order"].to_list()))
        lim_idx = np.array([orders.index(o) for o in frame["limit_order"]])
        pooled = noise_model == "pooled"
        noises = noise_per_limit(lim_idx, cell_idx, log_y, len(orders), pooled=pooled)
        zero = not noise.assumption_based and all(n.zero for n in noises)
        if zero:
            noise = NoiseModel(0.0, noise.df, noise.source, False, noise.replicated_limits, ZERO_NOTE)
        has_explicit = bool(cells["explicit"].any())
        has_auto = bool((cells["threads"] == "auto").any())
        note = ""
        if not has_explicit:
            note = ("only `auto` thread counts in these runs: no explicit thread count to compare; "
                    "run a sweep with explicit threads (e.g. 1, 2, 4, 8) to answer this question")
        elif noise.assumption_based:
            note = noise.note
        elif zero:
            note = ZERO_NOTE
        replicated = int((cells["runs"] > 1).sum())
        choices = tuple(
            _choice(sub, noise if noise.assumption_based else noises[orders.index(key[0])].model(replicated),
                    alpha, level, frame.filter(pl.col("limit_order") == key[0]), seed=i, n_sim=n_sim)
            for i, (key, sub) in enumerate(sorted(cells.partition_by("limit_order", as_dict=True).items(),
                                                  key=lambda kv: kv[0][0]))
        )
        method = ("too few to decide: no replicated cell, run-to-run noise unmeasured" if noise.assumption_based
                  else describe(noises, pooled=pooled) + "; " + PROCEDURE)
        if flagged:
            method += (f"; {len(flagged)} outlying run(s) flagged, {dropped} left out (only where their cell keeps "
                       "3 runs or more)")
        out.append(ThreadCountAnalysis(
            group=group, label=group_label(group), has_explicit_threads=has_explicit, has_auto=has_auto, note=note,
            noise=noise, alpha=alpha, limits=choices,
            cells=cells.select("limit_label", "limit_order", "cpu_limit_cores", "threads", "explicit", "runs",
                               "geomean_seconds"),
            metric=m, method=method, outlying_runs=tuple(flagged),
        ))
    return out


PROCEDURE = ("per limit: 'slower than the best' when the studentised gap exceeds the simulated largest pairwise gap "
             "of equal counts (Tukey-Kramer with the best re-picked in every draw; family-wise alpha per limit); auto "
             "vs the best explicit count selection-adjusted (the best re-picked in every simulated draw); probability "
             "best from the limit's noise (flat prior, sigma drawn from its chi-square)")


def _drop_outliers(frame: pl.DataFrame) -> tuple[pl.DataFrame, list[OutlyingRun], int]:
    """Runs far from their cell's median on the robust scale of all cells at their limit: flagged (and left out)."""
    ids = frame["run_id"].cast(pl.String).to_list() if "run_id" in frame.columns else \
        [str(i) for i in range(frame.height)]
    frame = frame.with_columns(pl.Series("_rid", ids))
    flagged: list[OutlyingRun] = []
    for _, sub in frame.partition_by("limit_order", as_dict=True, maintain_order=True).items():
        groups, run_ids, values = {}, {}, {}
        for (t,), c in sub.partition_by("threads", as_dict=True, maintain_order=True).items():
            key = f"{c['limit_label'][0]}, threads={t}"
            groups[key], run_ids[key] = c["log_wall"].to_numpy(), c["_rid"].to_list()
            values[key] = np.exp(groups[key])
        flagged += flag_outliers(groups, run_ids, values=values)
    # As in run_level.compare_runs: a flagged run is left out only where its cell keeps three runs or more (with
    # fewer, an outlying run cannot be told from a noisy cell); it is reported either way.
    size = frame.group_by("limit_order", "threads").len()
    size = {(r["limit_order"], r["threads"]): r["len"] for r in size.iter_rows(named=True)}
    where = dict(zip(frame["_rid"], zip(frame["limit_order"], frame["threads"])))
    per_cell: dict = {}
    for f in flagged:
        per_cell[where[f.run]] = per_cell.get(where[f.run], 0) + 1
    drop = {f.run for f in flagged if size[where[f.run]] - per_cell[where[f.run]] >= 3}
    return frame.filter(~pl.col("_rid").is_in(list(drop))).drop("_rid"), flagged, len(drop)


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
            seed: int = 0, n_sim: int = 20000) -> ThreadChoice:
    """One limit: ``noise`` is that limit's run-to-run noise (or the group's prior, ``assumption_based``)."""
    first = cells.row(0, named=True)
    limit_cores, label = first["cpu_limit_cores"], first["limit_label"]
    reserve = first["limit_x"]
    zero = not noise.assumption_based and noise.sigma == 0
    explicit = cells.filter(pl.col("explicit")).sort("mean_log")
    auto = cells.filter(pl.col("threads") == "auto")
    best = explicit.row(0, named=True) if explicit.height else None
    a = auto.row(0, named=True) if auto.height else None
    near: tuple[str, ...] = ()
    best_ci = worse_p = None
    if best:
        best_ci = expected_estimate(best["geomean_seconds"], best["runs"], noise, level, exact=zero)
        names = explicit["threads"].to_list()
        if noise.assumption_based:  # no test from a prior
            near_list = names
        elif zero:  # exact: only exact ties are as good as the best
            near_list = [t for t, v in zip(names, explicit["mean_log"]) if v <= best["mean_log"] + 1e-12]
        else:
            p_w = worse_than_best(explicit["mean_log"].to_numpy(), explicit["runs"].to_numpy(), noise.sigma, noise.df,
                                  n_sim=n_sim, seed=seed)
            worse_p = {t: float(p) for t, p in zip(names, p_w)}
            near_list = [t for t in names if worse_p[t] >= alpha]
        near = tuple(sorted(near_list, key=int))
    auto_vs_best = None
    if best and a:
        ci = p = None
        d = a["mean_log"] - best["mean_log"]
        pct = 100 * math.expm1(d)
        if noise.assumption_based:
            method = "too few to decide: no replicated cell, run-to-run noise unmeasured (no test from a prior)"
        elif zero:
            method = "exact difference: " + ZERO_NOTE
        else:
            ci, p = selection_adjusted(d, a["runs"], explicit["runs"].to_list(), noise, level, seed=seed, n_sim=n_sim)
            method = (f"selection-adjusted: auto vs the fastest of {explicit.height} explicit counts, null simulated "
                      f"with the best picked in every draw; noise of this limit ({noise.source}, "
                      f"{noise.cv_pct:.1f}%, df {noise.df:g})")
        auto_vs_best = Estimate(pct, None if ci is None else ci.low, None if ci is None else ci.high, level, method, p,
                                int(a["runs"] + explicit["runs"].sum()), "pct", "auto against the fastest explicit count")
    prob = None
    if best and explicit.height > 1:
        if noise.assumption_based and runs is not None:
            cand = {t: np.exp(runs.filter(pl.col("threads") == t)["log_wall"].to_numpy()) for t in explicit["threads"]}
            prob = best_choice(cand, seed=seed).probability_best
        elif not noise.assumption_based:
            pb = posterior_best(explicit["mean_log"].to_numpy(), explicit["runs"].to_numpy(), noise.sigma, noise.df,
                                seed=seed)
            prob = {t: float(v) for t, v in zip(explicit["threads"], pb)}
    rec = None
    if best and a:
        rec = a if a["mean_log"] <= best["mean_log"] else best
    else:
        rec = best or a
    rec_est = expected_estimate(rec["geomean_seconds"], rec["runs"], noise, level, exact=zero) if rec else None
    measured = not noise.assumption_based
    return ThreadChoice(
        limit_cores=limit_cores, limit_label=label,
        best_threads=best["threads"] if best else None, best_seconds=best_ci, near_best_threads=near,
        auto_seconds=a["geomean_seconds"] if a else None, auto_vs_best=auto_vs_best,
        recommended_threads=rec["threads"] if rec else None, recommended_seconds=rec_est,
        core_seconds=(reserve * rec["geomean_seconds"]) if (rec and reserve is not None) else None,
        probability_best=prob, worse_than_best_p_values=worse_p,
        noise_cv_pct=noise.cv_pct if measured else None, noise_df=noise.df if measured else None,
        noise_source=noise.source if measured else "unmeasured",
    )
