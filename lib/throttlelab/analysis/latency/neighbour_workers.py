"""Response time against the noisy neighbour's number of busy workers at a fixed CPU share.

The contention paper's second experiment (seed 001, section 3.3): a stress pod
holding 65% of the node's CPU with 2, 4, 6, 8 or 10 CPU jobs while the target
receives 400 requests in 30 s.  The paper shows the result only as a figure
(mean, p90 and p95 per job count, no table): the mean stays about flat while
p90 and p95 rise, by up to 19.4%.  There are no published numbers to
reproduce; :func:`analyse_neighbour_workers` analyses measured requests of the
same design (one neighbour share, several worker counts), per configuration
and load:

``summary``
    per worker count: counts, failures by kind, mean/p50/p90/p95/p99 of the
    answered requests with percentile-bootstrap intervals (resampling requests).
``runs``
    per run: worker count, answered requests, mean/p90/p95 (the run-to-run spread).
``change``
    each statistic against the baseline worker count (the fewest; 2 in the
    paper): % change with a bootstrap interval.  With two or more runs per
    worker count the interval comes from a two-stage bootstrap (runs resampled,
    then requests within them), so it includes run-to-run variation; with one
    run per count it resamples requests only and says so (``interval``).
``tests``
    per worker count, a two-sided Mann-Whitney U test against the baseline
    (rank-biserial effect, positive = slower), Holm-corrected over the worker
    counts of the group, the median change with its interval, and a verdict
    that needs both the test and, with replicates, a median-change interval
    that excludes 0.
``trend``
    across all worker counts: the Jonckheere-Terpstra test for an ordered
    alternative (:func:`~throttlelab.analysis.latency.trend_tests.jonckheere_terpstra`, effect = concordance tau in
    [-1, 1]), Spearman's rho of per-request latency against the worker count,
    the slope of mean/p90/p95 per added worker with a bootstrap interval
    (:func:`~throttlelab.analysis.latency.trend_tests.slope_per_worker`), and, when every worker count has at least two
    runs, Spearman's rho of the per-run p95 against the worker count.

Dependence, stated with every table: requests of one run are not independent
(they share the service's queue and the neighbour's scheduling phase over the
same few seconds), so request-level p-values are optimistic; the run-level
test, with replicate runs as the units, is the one to trust.  With one run per
worker count, a worker-count effect is also confounded with drift of a shared
machine between runs (the points run one after another).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from throttlelab.analysis.stats import holm
from throttlelab.analysis.stats import run_level_columns
from throttlelab.analysis.latency.latency import inflation, summarize_latency
from throttlelab.analysis.latency.trend_tests import SLOPE_STATS, two_stage_bootstrap, worker_trend

STATS = ("mean", "p50", "p90", "p95", "p99")
RUNS_INTERVAL = "runs and requests resampled (two-stage bootstrap)"
REQUESTS_INTERVAL = "requests resampled (one run per worker count: run-to-run variation is not in the interval)"
DEPENDENCE_NOTE = ("requests of one run share its queue and the neighbour's phase: request-level p-values are "
                   "optimistic; trust the run-level test (replicate runs) where there is one")


def choose_share(requests: pl.DataFrame) -> float | None:
    """The neighbour share with the most distinct worker counts (the highest share on a tie); None if none has two."""
    sub = requests.filter((pl.col("contention") > 0) & pl.col("neighbour_workers").is_not_null())
    if sub.is_empty():
        return None
    counts = sub.group_by("contention").agg(pl.col("neighbour_workers").n_unique().alias("k")).sort("k", "contention")
    best = counts.row(-1, named=True)
    return float(best["contention"]) if best["k"] >= 2 else None


def run_table(ok: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """One row per run: ``by``, worker count, answered requests, mean/p90/p95 (s)."""
    return (ok.group_by(*by, "neighbour_workers", "run_id")
            .agg(pl.len().alias("n_ok"), pl.col("latency_seconds").mean().alias("mean_seconds"),
                 pl.col("latency_seconds").quantile(0.9, interpolation="linear").alias("p90_seconds"),
                 pl.col("latency_seconds").quantile(0.95, interpolation="linear").alias("p95_seconds"))
            .sort(*by, "neighbour_workers", "run_id"))


def _compare(g: pl.DataFrame, labels: dict, base: int, present: list[int], stats: tuple[str, ...], *, min_n: int,
             alpha: float, n_boot: int, level: float, seed: int) -> tuple[list[dict], list[dict]]:
    """Change rows and test rows of one (config, load) group against the baseline worker count."""
    runs = {w: [r["latency_seconds"].to_numpy() for r in g.filter(pl.col("neighbour_workers") == w)
                .partition_by("run_id", maintain_order=True)] for w in present}
    replicated = min(len(v) for v in runs.values()) >= 2
    rng = np.random.default_rng(seed)
    names = tuple(dict.fromkeys((*stats, "p50")))
    boots = {w: two_stage_bootstrap(v, names, n_boot, rng) for w, v in runs.items()} if replicated else {}
    a = (1 - level) / 2
    y = np.concatenate(runs[base])
    change, tests = [], []
    for w in (v for v in present if v != base):
        x = np.concatenate(runs[w])
        for s in stats:
            inf = inflation(x, y, s, n_boot=n_boot, level=level, seed=seed)
            if replicated:
                lo, hi = np.quantile((boots[w][s] / boots[base][s] - 1) * 100, [a, 1 - a])
            else:
                lo, hi = inf.confidence_interval()
            change.append(labels | {"neighbour_workers": w, "stat": s, "value_seconds": inf.value,
                                    "baseline_seconds": inf.baseline, "percent": inf.percent, "percent_low": float(lo),
                                    "percent_high": float(hi), "interval": RUNS_INTERVAL if replicated else REQUESTS_INTERVAL})
        med = inflation(x, y, "p50", n_boot=n_boot, level=level, seed=seed)
        mlo, mhi = (np.quantile((boots[w]["p50"] / boots[base]["p50"] - 1) * 100, [a, 1 - a]) if replicated
                    else med.confidence_interval())
        run_cols = run_level_columns({str(i): v for i, v in enumerate(runs[w])},
                                     {str(i): v for i, v in enumerate(runs[base])}, "p50", alpha=alpha,
                                     family=max(len(present) - 1, 1))
        tests.append(run_cols | labels | {"neighbour_workers": w, "n": int(x.size), "n_baseline": int(y.size),
                               "runs": len(runs[w]), "runs_baseline": len(runs[base]), "p_value": med.p_value,
                               "rank_biserial": med.rank_biserial, "median_change_percent": med.percent,
                               "median_change_low": float(mlo), "median_change_high": float(mhi)})
    adjusted = holm([t["p_value"] if t["n"] >= min_n and t["n_baseline"] >= min_n else np.nan for t in tests])
    for t, p in zip(tests, adjusted):
        t["p_holm"] = float(p) if np.isfinite(p) else None
        excludes_zero = t["median_change_low"] > 0 or t["median_change_high"] < 0
        # The verdict is the run-level one (per-run median, Welch on logs, Bonferroni over worker counts).
        if t["p_holm"] is None:
            t["verdict"] = "not enough data to decide"
        elif t["run_verdict"] == "too few to decide":
            t["verdict"] = "too few to decide (one run per worker count)"
        elif t["run_verdict"] == "no difference shown":
            t["verdict"] = "no difference shown" + ("" if not excludes_zero or t["p_holm"] >= alpha else
                                                    " (runs disagree: the request-level test alone would call it)")
        else:
            t["verdict"] = t["run_verdict"]
    return change, tests


def analyse_neighbour_workers(requests: pl.DataFrame, *, share: float | None = None, baseline_workers: int | None = None,
                              stats: tuple[str, ...] = STATS, alpha: float = 0.05, min_n: int = 5, n_boot: int = 500,
                              level: float = 0.95, seed: int = 0) -> dict:
    """Everything the worker-count section of notebook 05 shows (see the module docstring).

    Parameters
    ----------
    requests
        A requests table with ``contention`` and ``neighbour_workers`` (extra columns allowed).
    share
        The neighbour share to analyse; default :func:`choose_share`.
    baseline_workers
        Worker count the changes are measured against; default the fewest present.

    Returns
    -------
    dict
        ``share``, ``baseline_workers``, ``workers`` (list), tables ``summary``, ``runs``,
        ``change`` (long: one row per worker count and statistic), ``tests``,
        ``trend`` (one row per config and load), and ``note``; or only ``note``
        (``"not enough data to decide: ..."``) when fewer than two worker counts
        share a neighbour share.
    """
    share = choose_share(requests) if share is None else share
    if share is None:
        return {"note": "not enough data to decide: no neighbour share was measured with two or more worker counts"}
    sub = requests.filter((pl.col("contention") - share).abs() < 1e-9, pl.col("neighbour_workers").is_not_null())
    workers = sorted(int(w) for w in sub["neighbour_workers"].unique().to_list())
    if len(workers) < 2:
        return {"note": f"not enough data to decide: share {share:g} has {len(workers)} worker count(s)"}
    base = workers[0] if baseline_workers is None else int(baseline_workers)
    if base not in workers:
        raise ValueError(f"baseline_workers {base} not measured; have {workers}")
    by = [c for c in ("config", "load") if c in sub.columns]
    summary = summarize_latency(sub, [*by, "neighbour_workers"], stats=stats, n_boot=n_boot, level=level, seed=seed)
    ok = sub.filter((pl.col("status") == "ok") & pl.col("latency_seconds").is_not_null())
    change, tests, trend = [], [], []
    for key, g in ok.partition_by(by, as_dict=True, maintain_order=True).items():
        labels = dict(zip(by, key))
        present = sorted(int(w) for w in g["neighbour_workers"].unique().to_list())
        if base in present:
            c, tt = _compare(g, labels, base, present, stats, min_n=min_n, alpha=alpha, n_boot=n_boot, level=level,
                             seed=seed)
            change += c
            tests += tt
        if len(present) >= 2:
            trend.append(labels | worker_trend(g, present, alpha=alpha, n_boot=n_boot, level=level, seed=seed)
                         | {"note": DEPENDENCE_NOTE})
    return {"share": share, "baseline_workers": base, "workers": workers, "summary": summary,
            "runs": run_table(ok, by),
            "change": pl.DataFrame(change, infer_schema_length=None), "tests": pl.DataFrame(tests, infer_schema_length=None),
            "trend": pl.DataFrame(trend, infer_schema_length=None),
            "note": f"answered requests only (failures are counted in the summary); {DEPENDENCE_NOTE}"}


def change_wide(change: pl.DataFrame, stats: tuple[str, ...] = STATS) -> pl.DataFrame:
    """The ``change`` table for reading: one row per (config, load, worker count), one column per statistic,
    cells ``"+12.3% [+1.0, +25.0]"`` (% change vs the baseline worker count, 95% bootstrap interval)."""
    if change.is_empty():
        return change
    by = [c for c in ("config", "load", "neighbour_workers") if c in change.columns]

    def fmt(v: float | None) -> str:
        return "?" if v is None or not np.isfinite(v) else f"{v:+.1f}"

    cells = change.with_columns(pl.struct("percent", "percent_low", "percent_high").map_elements(
        lambda r: f"{fmt(r['percent'])}% [{fmt(r['percent_low'])}, {fmt(r['percent_high'])}]",
        return_dtype=pl.String).alias("cell"))
    wide = cells.pivot(on="stat", index=by, values="cell").sort(by)
    return wide.select(*by, *[s for s in stats if s in wide.columns])


def headline(result: dict) -> str | None:
    """One line: change of mean/p90/p95 at the most workers vs the baseline (with what the interval resamples),
    and the trend verdict with its run-level test when there is one (first config and load)."""
    change, trend = result.get("change"), result.get("trend")
    if change is None or change.is_empty():
        return None
    top = change.filter(pl.col("neighbour_workers") == change["neighbour_workers"].max())
    first = top.row(0, named=True)
    top = top.filter(*[pl.col(c) == first[c] for c in ("config", "load") if c in top.columns])
    parts = [f"{r['stat']} {r['percent']:+.0f}% [{r['percent_low']:+.0f}, {r['percent_high']:+.0f}]"
             for r in top.iter_rows(named=True) if r["stat"] in SLOPE_STATS]
    basis = "runs and requests resampled" if first["interval"] == RUNS_INTERVAL else "requests resampled, one run each"
    verdict = "no trend test"
    if trend is not None and trend.height:
        tr = trend.row(0, named=True)
        verdict = tr["verdict"]
        if tr.get("run_spearman_rho") is not None:
            verdict += f" (Spearman of run p95: rho {tr['run_spearman_rho']:+.2f}, p {tr['run_spearman_p']:.2g})"
    load = f" at load {first['load']:g}" if first.get("load") is not None else ""
    return (f"Neighbour at {result['share']:.0%} with {first['neighbour_workers']} vs {result['baseline_workers']} busy "
            f"workers{load}: " + ", ".join(parts) + f" (95% CIs, {basis}); trend across worker counts: {verdict}")
