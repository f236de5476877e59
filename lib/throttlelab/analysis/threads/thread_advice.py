"""Thread advice for a service: which thread count (GOMAXPROCS) per limit, and what ``auto`` and host cores lose.

Per CPU limit, the thread count to use is the best explicit one by the
*primary* metric (e.g. throughput).  For it and for every advice metric (e.g.
throughput and p99 latency) :func:`thread_advice` compares against it

* ``auto`` (the runtime's own choice), and
* the host's core count (the pre-1.25 Go default, ``GOMAXPROCS = NumCPU``),

as the change of that metric in % with a 95% interval and a two-sided
p-value from the runs (t on the log scale with the run-to-run noise of the limit from
:func:`~throttlelab.analysis.threads.thread_counts.analyse_thread_counts`; the run is
the unit).  Where no cell is replicated there is no interval: the verdict of
:mod:`throttlelab.analysis.runs.single_numbers` (break-even noise) is given instead.
"""

from __future__ import annotations

import math

import polars as pl
from scipy import stats

from throttlelab.analysis.runs import prepare_runs
from throttlelab.analysis.runs import metric_change_ci, metric_change_pct, resolve
from throttlelab.analysis.runs import CEILING_CV, FLOOR_CV, critical_gap, sigma_to_cv
from throttlelab.analysis.threads.thread_counts import analyse_thread_counts
from throttlelab.results import ConfidenceInterval

SCHEMA = {"group": pl.String, "limit": pl.String, "limit_cores": pl.Float64, "use_threads": pl.String,
          "near_best_threads": pl.String,
          "metric": pl.String, "unit": pl.String, "direction": pl.String, "compared": pl.String,
          "compared_threads": pl.String, "use_value": pl.Float64, "compared_value": pl.Float64,
          "change_pct": pl.Float64, "ci_low_pct": pl.Float64, "ci_high_pct": pl.Float64, "p_value": pl.Float64,
          "runs": pl.String, "verdict": pl.String}


def thread_advice(runs: pl.DataFrame, *, metric: str = "throughput_rps", advice_metrics: tuple[str, ...] = (),
                  machine_cores: float | None = None, alpha: float = 0.05, level: float = 0.95,
                  ceiling_cv: float = CEILING_CV, floor_cv: float = FLOOR_CV) -> pl.DataFrame:
    """Per group and limit: the thread count to use, and ``auto`` / host cores against it, per metric.

    Parameters
    ----------
    runs
        A canonical runs table (not prepared: each metric prepares its own).
    metric
        The metric that chooses the thread count.
    advice_metrics
        Further metrics to report the comparisons in (the primary one comes first).
    machine_cores
        The host's cores (``None``: from the runs' ``node`` column); without it
        no host-cores comparison.
    ceiling_cv, floor_cv
        The noise band of the single-number verdicts (:mod:`throttlelab.analysis.runs.single_numbers`).

    Returns
    -------
    polars.DataFrame
        One row per (group, limit, metric, compared thread count); see ``SCHEMA``.
        ``near_best_threads``: explicit counts not significantly worse than
        the one to use (by the primary metric; null for single numbers).
    """
    primary = prepare_runs(runs, machine_cores=machine_cores, metric=metric)
    cores = primary.machine_cores
    host = str(int(cores)) if cores and float(cores).is_integer() else None
    choice, near = {}, {}
    for a in analyse_thread_counts(primary.runs, alpha=alpha, level=level):
        for c in a.limits:
            choice[(a.label, c.limit_label)] = c.best_threads
            if not a.noise.assumption_based:  # with one run per cell "near best" would rest on an assumed noise
                near[(a.label, c.limit_label)] = ", ".join(t for t in c.near_best_threads if t != c.best_threads)
    chose = _auto_choices(primary.runs)
    rows = []
    for name in dict.fromkeys([metric, *advice_metrics]):
        prep = primary if name == metric else prepare_runs(runs, machine_cores=cores, metric=name)
        m = prep.metric
        for a in analyse_thread_counts(prep.runs, alpha=alpha, level=level):
            for lim in a.limits:
                use = choice.get((a.label, lim.limit_label))
                cells = {r["threads"]: r for r in a.cells.filter(pl.col("limit_label") == lim.limit_label)
                         .iter_rows(named=True)}
                if use is None or use not in cells:
                    continue
                ref = cells[use]
                eff = chose.get((a.group.get("workload"), a.group.get("contention"), lim.limit_label))
                for what, t in ((f"auto (={eff})" if eff else "auto", "auto"), (f"host cores ({host})", host)):
                    if t is None or t not in cells or t == use:
                        continue
                    cell = cells[t]
                    d = math.log(cell["geomean_seconds"]) - math.log(ref["geomean_seconds"])
                    row = {"group": a.label, "limit": lim.limit_label, "limit_cores": lim.limit_cores,
                           "use_threads": use, "near_best_threads": near.get((a.label, lim.limit_label)),
                           "metric": m.name, "unit": m.unit, "direction": m.direction,
                           "compared": what, "compared_threads": t, "use_value": ref["geomean_seconds"] ** m.sign,
                           "compared_value": cell["geomean_seconds"] ** m.sign,
                           "change_pct": metric_change_pct(100 * math.expm1(d), m),
                           "runs": f"{cell['runs']} vs {ref['runs']}"}
                    if a.noise.assumption_based:
                        row["verdict"] = _single_verdict(d, len(cells), alpha, ceiling_cv, floor_cv)
                    elif lim.noise_source == "zero":  # identical replicates: the difference is exact
                        row["verdict"] = (("worse" if d > 0 else "better" if d < 0 else "same") +
                                          " (exact: zero run-to-run noise, a deterministic metric; no test needed)")
                    else:  # this limit's own run-to-run noise (thread_noise)
                        sigma = math.sqrt(math.log1p((lim.noise_cv_pct / 100) ** 2))
                        row.update(_run_comparison(d, cell["runs"], ref["runs"], sigma, lim.noise_df, m, alpha, level))
                    rows.append(row)
    return pl.DataFrame(rows, schema=SCHEMA) if rows else pl.DataFrame(schema=SCHEMA)


def _single_verdict(d: float, k: int, alpha: float, ceiling_cv: float, floor_cv: float) -> str:
    """Single numbers: the count to use was chosen after looking, so the gap is range-corrected over ``k`` cells."""
    be = sigma_to_cv(abs(d) / critical_gap(k, alpha, "best"))
    if be >= ceiling_cv:
        return f"single numbers: clearly {'worse' if d > 0 else 'better'} even at {100 * ceiling_cv:.0f}% noise"
    if be < floor_cv:
        return f"single numbers: cannot tell (within {100 * floor_cv:.0f}% noise)"
    return f"single numbers: undecided (break-even noise {100 * be:.0f}%)"


def _run_comparison(d: float, n: int, n_ref: int, sigma: float, df: float, m, alpha: float, level: float) -> dict:
    """Replicated runs: interval of the metric's change, two-sided t p-value, verdict (with runs needed if undecided)."""
    tdist = stats.t(df) if math.isfinite(df) else stats.norm()
    se = sigma * math.sqrt(1 / n + 1 / n_ref)
    q = tdist.ppf(1 - (1 - level) / 2)
    ci = metric_change_ci(ConfidenceInterval(100 * math.expm1(d - q * se), 100 * math.expm1(d + q * se)), m)
    p = float(2 * tdist.sf(abs(d) / se))
    verdict = ("worse" if d > 0 else "better") if p < alpha else "too few runs to decide"
    if p >= alpha and d != 0:  # runs per cell for 80% power at this difference and noise
        need = math.ceil(2 * ((stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(0.8)) * sigma / d) ** 2)
        verdict += (f" (about {need} runs per cell would decide a difference this size)" if need <= 100
                    else " (a difference this small would need over 100 runs per cell)")
    return {"ci_low_pct": ci.low, "ci_high_pct": ci.high, "p_value": p, "verdict": verdict}


def _auto_choices(runs: pl.DataFrame) -> dict[tuple, str]:
    """(workload, contention, limit) -> the thread count ``auto`` ran with, where runs recorded one value."""
    if "threads_effective" not in runs.columns:
        return {}
    auto = runs.filter(pl.col("threads") == "auto", pl.col("threads_effective").is_not_null())
    out = {}
    for (w, c, lim), sub in auto.partition_by("workload", "contention", "limit_label", as_dict=True).items():
        values = sub["threads_effective"].unique().to_list()
        if len(values) == 1:
            out[(w, c, lim)] = str(values[0])
    return out


def advice_sentences(advice: pl.DataFrame) -> list[str]:
    """One sentence per (group, limit): the thread count to use and what ``auto`` and host cores lose."""
    out = []
    for (group, limit), sub in advice.partition_by("group", "limit", as_dict=True, maintain_order=True).items():
        parts = []
        for r in sub.iter_rows(named=True):
            label = resolve(r["metric"]).label
            if r["ci_low_pct"] is not None:
                parts.append(f"{r['compared']} {label} {r['change_pct']:+.0f}% (95% CI {r['ci_low_pct']:+.0f}% to "
                             f"{r['ci_high_pct']:+.0f}%, p = {r['p_value']:.3g}, runs {r['runs']}: {r['verdict']})")
            else:
                parts.append(f"{r['compared']} {label} {r['change_pct']:+.0f}% ({r['verdict']})")
        near = sub["near_best_threads"][0]
        tie = f" ({near} not significantly worse)" if near else ""
        out.append(f"{group}, {limit}: use {sub['use_threads'][0]} threads{tie}; " + "; ".join(parts) + ".")
    return out


__all__ = ["thread_advice", "advice_sentences"]
