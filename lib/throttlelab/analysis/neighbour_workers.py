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
``change``
    each statistic against the baseline worker count (the fewest; 2 in the
    paper): ratio and % change with a bootstrap interval (both groups resampled).
``tests``
    per worker count, a two-sided Mann-Whitney U test against the baseline
    (rank-biserial effect, positive = slower), Holm-corrected over the worker
    counts of the group, and a verdict.
``trend``
    across all worker counts: the Jonckheere-Terpstra test for an ordered
    alternative (:func:`~throttlelab.analysis.trend_tests.jonckheere_terpstra`, effect = concordance tau in
    [-1, 1]), Spearman's rho of per-request latency against the worker count,
    the slope of mean/p90/p95 per added worker with a bootstrap interval
    (:func:`~throttlelab.analysis.trend_tests.slope_per_worker`), and, when every worker count has at least two
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
from scipy import stats as st

from throttlelab.analysis.concurrency import holm
from throttlelab.analysis.latency import inflation, statistic, summarize_latency
from throttlelab.analysis.trend_tests import jonckheere_terpstra, slope_per_worker

STATS = ("mean", "p50", "p90", "p95", "p99")
SLOPE_STATS = ("mean", "p90", "p95")
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


def _groups(ok: pl.DataFrame, workers: list[int]) -> list[np.ndarray]:
    return [ok.filter(pl.col("neighbour_workers") == w)["latency_seconds"].to_numpy() for w in workers]


def _run_level(ok: pl.DataFrame, stat: str) -> dict:
    """Spearman's rho of a per-run statistic against the worker count (replicate runs as units)."""
    per_run = (ok.group_by("run_id", "neighbour_workers").agg(pl.col("latency_seconds"))
               .with_columns(pl.col("latency_seconds").map_elements(lambda s: float(statistic(s.to_numpy(), stat)),
                                                                    return_dtype=pl.Float64).alias("value")))
    runs = per_run.group_by("neighbour_workers").len()
    min_runs = int(runs["len"].min()) if runs.height else 0
    out = {"runs_per_workers_min": min_runs, "run_stat": stat, "run_spearman_rho": None, "run_spearman_p": None}
    if min_runs >= 2 and runs.height >= 3:
        r = st.spearmanr(per_run["neighbour_workers"].to_numpy(), per_run["value"].to_numpy())
        out |= {"run_spearman_rho": float(r.statistic), "run_spearman_p": float(r.pvalue)}
    return out


def _trend_row(ok: pl.DataFrame, workers: list[int], *, alpha: float, n_boot: int, level: float, seed: int) -> dict:
    groups = _groups(ok, workers)
    row: dict = {"workers": ",".join(map(str, workers)), "n": int(sum(g.size for g in groups))}
    jt = jonckheere_terpstra(groups, n_boot=n_boot, level=level, seed=seed)
    row |= {"jt_statistic": jt.statistic, "jt_z": jt.z, "jt_p": jt.p_value, "jt_tau": jt.tau,
            "jt_tau_low": jt.tau_low, "jt_tau_high": jt.tau_high}
    w = ok["neighbour_workers"].to_numpy()
    rho = st.spearmanr(w, ok["latency_seconds"].to_numpy()) if np.ptp(w) > 0 else None
    row |= {"spearman_rho": float(rho.statistic) if rho else None, "spearman_p": float(rho.pvalue) if rho else None}
    for s in SLOPE_STATS:
        e = slope_per_worker(groups, workers, s, n_boot=n_boot, level=level, seed=seed)
        row |= {f"slope_{s}_ms_per_worker": e.value * 1000, f"slope_{s}_low": e.low * 1000,
                f"slope_{s}_high": e.high * 1000}
    row |= _run_level(ok, "p95")
    if len(workers) < 3 or min(g.size for g in groups) < 5:
        verdict = "not enough data to decide"
    elif row["run_spearman_p"] is not None:
        verdict = ("rising with workers" if row["run_spearman_p"] < alpha and row["run_spearman_rho"] > 0 else
                   "falling with workers" if row["run_spearman_p"] < alpha else "no trend shown (run level)")
    elif jt.p_value < alpha:
        verdict = ("rising with workers" if jt.tau > 0 else "falling with workers") + " (request level only)"
    else:
        verdict = "no trend shown"
    return row | {"verdict": verdict, "note": DEPENDENCE_NOTE}


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
        ``share``, ``baseline_workers``, ``workers`` (list), tables ``summary``,
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
        y = g.filter(pl.col("neighbour_workers") == base)["latency_seconds"].to_numpy()
        group_tests = []
        for w in (v for v in present if v != base):
            x = g.filter(pl.col("neighbour_workers") == w)["latency_seconds"].to_numpy()
            for s in stats:
                inf = inflation(x, y, s, n_boot=n_boot, level=level, seed=seed)
                ci = inf.confidence_interval()
                change.append(labels | {"neighbour_workers": w, "stat": s, "value_seconds": inf.value,
                                        "baseline_seconds": inf.baseline, "percent": inf.percent,
                                        "percent_low": ci.low, "percent_high": ci.high})
            group_tests.append(labels | {"neighbour_workers": w, "n": int(x.size), "n_baseline": int(y.size),
                                         "p_value": inf.p_value, "rank_biserial": inf.rank_biserial,
                                         "median_change_percent": (float(np.median(x) / np.median(y) - 1) * 100
                                                                   if x.size and y.size else None)})
        adjusted = holm([t["p_value"] if t["n"] >= min_n and t["n_baseline"] >= min_n else np.nan for t in group_tests])
        for t, p in zip(group_tests, adjusted):
            t["p_holm"] = float(p) if np.isfinite(p) else None
            t["verdict"] = ("not enough data to decide" if t["p_holm"] is None else
                            "no difference shown" if t["p_holm"] >= alpha else
                            "slower" if t["rank_biserial"] > 0 else "faster")
        tests += group_tests
        if len(present) >= 2:
            trend.append(labels | _trend_row(g, present, alpha=alpha, n_boot=n_boot, level=level, seed=seed))
    return {"share": share, "baseline_workers": base, "workers": workers, "summary": summary,
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
    """One line: change of mean/p90/p95 at the most workers vs the baseline, and the trend verdict (first group)."""
    change, trend = result.get("change"), result.get("trend")
    if change is None or change.is_empty():
        return None
    top = change.filter(pl.col("neighbour_workers") == change["neighbour_workers"].max())
    first = top.row(0, named=True)
    top = top.filter(*[pl.col(c) == first[c] for c in ("config", "load") if c in top.columns])
    parts = [f"{r['stat']} {r['percent']:+.0f}% [{r['percent_low']:+.0f}, {r['percent_high']:+.0f}]"
             for r in top.iter_rows(named=True) if r["stat"] in SLOPE_STATS]
    verdict = trend["verdict"][0] if trend is not None and trend.height else "no trend test"
    load = f" at load {first['load']:g}" if "load" in first and first["load"] is not None else ""
    return (f"Neighbour at {result['share']:.0%} with {first['neighbour_workers']} vs {result['baseline_workers']} busy "
            f"workers{load}: " + ", ".join(parts) + f" (95% bootstrap CIs); trend across worker counts: {verdict}")
