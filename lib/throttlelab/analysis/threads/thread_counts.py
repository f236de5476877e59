"""Thread counts: the best explicit thread count per CPU limit, and ``auto`` against it.

Per (workload, contention) group, every (limit, threads) cell is compared on
the log scale with **the run-to-run noise of its limit**
(:mod:`throttlelab.analysis.threads.thread_noise`: the log-linear trend of the
noise across limits of :mod:`~throttlelab.analysis.stats.level_noise` with the
trend's degrees of freedom at that limit, never below the limit's own
replicated cells).  Outlying runs are flagged against the robust scale of the
runs at their limit (:func:`~throttlelab.analysis.stats.run_level.flag_outliers`),
reported and left out.

Every claim is controlled over **the whole sweep**
(:mod:`throttlelab.analysis.threads.thread_sweep`): at each limit the settings
(explicit counts and ``auto``) are compared pairwise against the simulated
largest studentised gap of equal settings (Tukey-Kramer, the best re-picked in
every draw), and the limits are combined by Bonferroni.  Per limit:

* ``best_threads``: the explicit thread count with the lowest geometric-mean
  time, with the interval of that time;
* ``near_best_threads``: explicit counts not shown slower than the best,
  p-values in ``worse_than_best_p_values``;
* ``auto`` against the best explicit count: time ratio in %, its interval
  (simultaneous over every limit, so it also holds for the limit a headline
  picks) and its sweep-adjusted p-value;
* ``probability_best``: for each explicit count, the probability that it is the
  fastest given the limit's noise (:func:`~throttlelab.analysis.stats.selection.posterior_best`).

``family="limit"`` tests each limit on its own (the earlier family: 9-28% of
simulated null sweeps of 8 limits then claim something somewhere, against
1.5-6.5% for the sweep; ``bench/bench_stats.py``).  With no
replicated cell in the group (one number per cell): no interval, no p-value and
no probability; what single numbers can decide is
:func:`~throttlelab.analysis.runs.single_numbers.single_number_verdicts` (in
``single_numbers``), and ``near_best_threads`` are the counts none of those
verdicts calls clearly worse.  With
zero run-to-run noise (identical replicates: a deterministic metric) the
differences are exact: no interval, no test, and the method says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from throttlelab.analysis.stats import PRIOR_CV, NoiseModel, estimate_effects
from throttlelab.analysis.runs import group_label, iter_groups
from throttlelab.analysis.runs import RESPONSE_METRICS, ResponseMetric, resolve
from throttlelab.analysis.stats import OutlyingRun, flag_outliers
from throttlelab.analysis.runs import CEILING_CV, FLOOR_CV, near_best_threads, single_number_verdicts
from throttlelab.analysis.threads.thread_choice import ThreadChoice, choose_threads
from throttlelab.analysis.threads.thread_noise import ZERO_NOTE, describe, noise_per_limit
from throttlelab.analysis.threads.thread_sweep import describe as describe_family
from throttlelab.results import Estimate

NOISE_MODELS = ("per limit", "pooled")
FAMILIES = ("sweep", "limit")



def _nulls_as_float(df: pl.DataFrame) -> pl.DataFrame:
    """Columns that came out all-null (e.g. no ``auto`` runs) as Float64, so tables keep one schema."""
    return df.with_columns(pl.col(c).cast(pl.Float64) for c, t in df.schema.items() if t == pl.Null)


@dataclass(frozen=True)
class ThreadCountAnalysis:
    """Thread-count analysis of one (workload, contention) group; ``parameters``: the arguments of
    :func:`analyse_thread_counts` that made it."""

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
    single_numbers: pl.DataFrame | None = None  # one number per cell: the verdicts of single_number_verdicts
    family_limits: int = 1  # limits whose claims share one family (Bonferroni divisor; 1: each limit on its own)
    parameters: dict[str, Any] = field(default_factory=dict)

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
                          noise_model: str = "per limit", n_sim: int = 20000, ceiling_cv: float = CEILING_CV,
                          floor_cv: float = FLOOR_CV, family: str = "sweep") -> list[ThreadCountAnalysis]:
    """Thread-count analysis per (workload, contention) group of prepared runs.

    ``metric``: the response metric the runs were prepared with
    (:func:`~throttlelab.analysis.runs.prepare.prepare_runs`); ``None`` reads it from
    the runs' ``metric`` column.  "Best" is then the best of that metric (highest
    throughput, lowest latency); ``*_seconds`` fields hold costs (see
    :mod:`throttlelab.analysis.runs.response_metric`).  ``noise_model``: ``"per limit"``
    (default, :mod:`~throttlelab.analysis.threads.thread_noise`) or ``"pooled"`` (one noise
    for all limits, the earlier method); ``n_sim``: draws of the simulated nulls.  ``family``: ``"sweep"``
    (default: every claim family-wise over the whole sweep, Bonferroni across its limits) or ``"limit"`` (each
    limit on its own, the earlier method).
    """
    if noise_model not in NOISE_MODELS:
        raise ValueError(f"noise_model must be one of {NOISE_MODELS}, not {noise_model!r}")
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, not {family!r}")
    m = _prepared_metric(runs, metric)
    parameters = {"alpha": alpha, "prior_cv": prior_cv, "level": level, "noise_model": noise_model, "n_sim": n_sim,
                  "ceiling_cv": ceiling_cv, "floor_cv": floor_cv, "family": family}
    out = []
    for group, frame in iter_groups(runs, ("workload", "contention")):
        # ceiling_cv, floor_cv: the noise band of the single-number verdicts (groups with one number per cell)
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
            note = SINGLE_NOTE
        elif zero:
            note = ZERO_NOTE
        replicated = int((cells["runs"] > 1).sum())
        single = None
        if noise.assumption_based and has_explicit:
            single = single_number_verdicts(
                cells.select("limit_label", "limit_order", "limit_x", "threads",
                             (pl.col("geomean_seconds") ** m.sign).alias("metric_value"), "runs",
                             pl.col("mean_log").alias("log_cost")),
                metric=m, alpha=alpha, ceiling_cv=ceiling_cv, floor_cv=floor_cv)
        models = [noise if noise.assumption_based else n.model(replicated) for n in noises]
        parts = sorted(cells.partition_by("limit_order", as_dict=True).items(), key=lambda kv: kv[0][0])
        tested = sum(1 for key, sub in parts if sub.height > 1 and not models[orders.index(key[0])].assumption_based
                     and models[orders.index(key[0])].sigma > 0)
        limits = max(tested, 1) if family == "sweep" else 1
        choices = tuple(
            choose_threads(sub, models[orders.index(key[0])], alpha, level, seed=i, n_sim=n_sim, limits=limits,
                           single_near_best=None if single is None else near_best_threads(single, sub["limit_label"][0]))
            for i, (key, sub) in enumerate(parts)
        )
        method = (f"{SINGLE_NOTE}; single-number verdicts: each count against the quota's count (the best where "
                  f"that is missing) by its break-even noise, clearly worse or better when the gap survives "
                  f"{100 * ceiling_cv:.0f}% run-to-run noise (Bonferroni, or the range of equal cells against the "
                  f"best, family-wise alpha {alpha:g} per limit)" if noise.assumption_based
                  else describe(noises, pooled=pooled) + "; " + procedure(limits, alpha))
        if flagged:
            method += (f"; {len(flagged)} outlying run(s) flagged, {dropped} left out (only where their cell keeps "
                       "3 runs or more)")
        out.append(ThreadCountAnalysis(
            group=group, label=group_label(group), has_explicit_threads=has_explicit, has_auto=has_auto, note=note,
            noise=noise, alpha=alpha, limits=choices,
            cells=cells.select("limit_label", "limit_order", "cpu_limit_cores", "threads", "explicit", "runs",
                               "geomean_seconds"),
            metric=m, method=method, outlying_runs=tuple(flagged), single_numbers=single, family_limits=limits,
            parameters=parameters,
        ))
    return out


SINGLE_NOTE = ("one run per cell: run-to-run noise unmeasured, so no interval, p-value or probability is given; "
               "only what single numbers can decide")


def procedure(limits: int, alpha: float) -> str:
    """The method text's procedure: the sweep-wide family, auto against the best and the probability of being best."""
    return (describe_family(limits, alpha) + "; 'slower than the best' and auto against the best explicit count are "
            "both pairs of that family; probability best from the limit's noise (flat prior, sigma drawn from its "
            "chi-square)")


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
    prepared = runs["metric"].unique(maintain_order=True).to_list() if "metric" in runs.columns and runs.height else []
    if metric is None:
        return resolve(prepared[0] if len(prepared) == 1 else None)
    m = resolve(metric)
    if prepared and prepared != [m.name]:
        raise ValueError(f"runs were prepared for {', '.join(map(str, prepared))}, not {m.name}: "
                         f"call prepare_runs(..., metric={m.name!r})")
    return m
