"""Thread advice for a service: which thread count (GOMAXPROCS) per limit, and what ``auto`` and host cores lose.

Per CPU limit, the thread count to use is the best explicit one by the
*primary* metric (e.g. throughput).  For it and for every advice metric (e.g.
throughput and p99 latency) :func:`thread_advice` compares against it

* ``auto`` (the runtime's own choice), and
* the host's core count (the pre-1.25 Go default, ``GOMAXPROCS = NumCPU``),

as the change of that metric in % with an interval and a p-value from the runs
(the run is the unit), in the family of
:func:`~throttlelab.analysis.threads.thread_counts.analyse_thread_counts`: every
setting of a limit compared pairwise with that limit's run-to-run noise
(Tukey-Kramer, which pays for choosing the count to use after looking), the
limits combined by Bonferroni, so a claim is controlled over the whole sweep
(:mod:`~throttlelab.analysis.threads.thread_sweep`).  In the metric that chose
the count these are the thread-count analysis' own numbers, so every view shows
one interval per number and near-best never contradicts a verdict: ``auto`` is
its ``auto_vs_best``, the host's count its "slower than the best" p-value with
the simultaneous interval read off the same null.  In the other advice metrics
(no choice was made in them) it is a pair of the same sweep-wide family, with
that metric's run-to-run noise.  Where no cell is replicated there is no
interval: the verdict of :mod:`throttlelab.analysis.runs.single_numbers`
(break-even noise) is given instead.
"""

from __future__ import annotations

import math

import polars as pl

from throttlelab import units
from throttlelab.analysis.runs import prepare_runs
from throttlelab.analysis.runs import metric_change_ci, metric_change_pct, resolve
from throttlelab.analysis.runs import CEILING_CV, FLOOR_CV, critical_gap, sigma_to_cv
from throttlelab.analysis.threads.thread_counts import analyse_thread_counts
from throttlelab.analysis.threads.thread_sweep import limit_family, pair_change, runs_to_decide
from throttlelab.results import ConfidenceInterval

SCHEMA = {"group": pl.String, "limit": pl.String, "limit_cores": pl.Float64, "use_threads": pl.String,
          "near_best_threads": pl.String,
          "metric": pl.String, "unit": pl.String, "direction": pl.String, "compared": pl.String,
          "compared_threads": pl.String, "use_value": pl.Float64, "compared_value": pl.Float64,
          "change_pct": pl.Float64, "ci_low_pct": pl.Float64, "ci_high_pct": pl.Float64, "p_value": pl.Float64,
          "runs": pl.String, "verdict": pl.String, "method": pl.String}


def thread_advice(runs: pl.DataFrame, *, metric: str = "throughput_rps", advice_metrics: tuple[str, ...] = (),
                  machine_cores: float | None = None, alpha: float = 0.05, level: float = 0.95,
                  ceiling_cv: float = CEILING_CV, floor_cv: float = FLOOR_CV, n_sim: int = 20000,
                  family: str = "sweep", analyses: list | None = None) -> pl.DataFrame:
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
    n_sim, family
        Draws of the simulated nulls, and the family of the claims (``"sweep"``: the whole sweep, or ``"limit"``),
        as in :func:`~throttlelab.analysis.threads.thread_counts.analyse_thread_counts`.
    analyses
        The primary metric's analyses of these runs when already made with the same settings (so that both give
        the same numbers); ``None``: made here.

    Returns
    -------
    polars.DataFrame
        One row per (group, limit, metric, compared thread count); see ``SCHEMA``.
        ``near_best_threads``: the other explicit counts not shown worse than
        the one to use (by the primary metric; with single numbers: not called
        clearly worse by any single-number verdict).
    """
    primary = prepare_runs(runs, machine_cores=machine_cores, metric=metric)
    cores = primary.machine_cores
    host = str(int(cores)) if cores and float(cores).is_integer() else None
    kw = dict(alpha=alpha, level=level, ceiling_cv=ceiling_cv, floor_cv=floor_cv, n_sim=n_sim, family=family)
    primary_analyses = analyses if analyses is not None else analyse_thread_counts(primary.runs, **kw)
    choice, near = {}, {}
    for a in primary_analyses:
        for c in a.limits:
            choice[(a.label, c.limit_label)] = c.best_threads
            near[(a.label, c.limit_label)] = ", ".join(t for t in c.near_best_threads if t != c.best_threads)
    chose = _auto_choices(primary.runs)
    rows = []
    for name in dict.fromkeys([metric, *advice_metrics]):
        prep = primary if name == metric else prepare_runs(runs, machine_cores=cores, metric=name)
        m = prep.metric
        for a in primary_analyses if name == metric else analyse_thread_counts(prep.runs, **kw):
            for i, lim in enumerate(a.limits):
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
                        row["method"] = ("one number per cell: break-even noise against the best measured count, "
                                         "range-corrected over the limit's cells; no interval or p-value")
                    elif lim.noise_source == "zero":  # identical replicates: the difference is exact
                        row["verdict"] = (("worse" if d > 0 else "better" if d < 0 else "same") +
                                          " (exact: zero run-to-run noise, a deterministic metric; no test needed)")
                        row["method"] = "exact difference: zero run-to-run noise"
                    else:  # this limit's run-to-run noise (thread_noise), a pair of the sweep-wide family
                        sigma = math.sqrt(math.log1p((lim.noise_cv_pct / 100) ** 2))
                        fam = _family(a, i, lim, n_sim)
                        if t == "auto" and name == metric:  # the analysis' own number
                            row.update(_from_estimate(lim.auto_vs_best, d, sigma, m, alpha, len(cells),
                                                      a.family_limits, n_sim))
                        elif name == metric:  # an explicit count against the best: the test that decides near-best
                            p = (lim.worse_than_best_p_values or {}).get(t)
                            row.update(_pair(d, cell["runs"], ref["runs"], sigma, fam, level, m, alpha, len(cells),
                                             n_sim, p=p, method=SAME_FAMILY + " (the test that decides near-best)"))
                        else:  # no choice was made in this metric: a pair of the same family, this metric's noise
                            row.update(_pair(d, cell["runs"], ref["runs"], sigma, fam, level, m, alpha, len(cells),
                                             n_sim, method=SAME_FAMILY + " (the count was chosen by another metric)"))
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


SAME_FAMILY = ("a pair of the sweep-wide family: every setting of each limit compared pairwise (Tukey-Kramer), "
               "Bonferroni across the limits, simultaneous interval")


def _family(a, i: int, lim, n_sim: int):
    """The limit's :class:`~throttlelab.analysis.threads.thread_sweep.LimitFamily`, drawn as the analysis drew it."""
    at = a.cells.filter(pl.col("limit_label") == lim.limit_label)
    settings = (at.filter(pl.col("explicit")).sort("geomean_seconds")["runs"].to_list()
                + at.filter(pl.col("threads") == "auto")["runs"].to_list())
    return limit_family(settings, lim.noise_df, a.family_limits, n_sim=n_sim, seed=i)


def _verdict(d: float, p: float, sigma: float, alpha: float, settings: int, limits: int, n_sim: int) -> str:
    """``worse``/``better`` when ``p < alpha``, else too few runs to decide, with the runs that would decide it."""
    verdict = ("worse" if d > 0 else "better") if p < alpha else "too few runs to decide"
    if p >= alpha and d != 0:  # runs per cell for 80% power at this difference and noise, in the same family
        need = runs_to_decide(d, sigma, settings, limits, alpha, n_sim=min(n_sim, 20000))
        verdict += (f" (about {need} runs per cell would decide a difference this size)" if need <= 100
                    else " (a difference this small would need over 100 runs per cell)")
    return verdict


def _from_estimate(e, d: float, sigma: float, m, alpha: float, settings: int, limits: int, n_sim: int) -> dict:
    """``auto`` in the choosing metric: the analysis' own ``auto_vs_best`` in the metric's terms."""
    ci = metric_change_ci(e.confidence_interval(), m)
    return {"ci_low_pct": ci.low, "ci_high_pct": ci.high, "p_value": e.p_value,
            "verdict": _verdict(d, e.p_value, sigma, alpha, settings, limits, n_sim), "method": e.method}


def _pair(d: float, n: int, n_ref: int, sigma: float, fam, level: float, m, alpha: float, settings: int,
          n_sim: int, *, p: float | None = None, method: str) -> dict:
    """One pair of the family: simultaneous interval of the metric's change, adjusted p-value (``p`` when the
    analysis already gave it from the same null), verdict."""
    ci, p_pair = pair_change(d, n, n_ref, sigma, fam, level)
    p = p_pair if p is None else p
    ci = metric_change_ci(ConfidenceInterval(100 * math.expm1(ci.low), 100 * math.expm1(ci.high)), m)
    return {"ci_low_pct": ci.low, "ci_high_pct": ci.high, "p_value": p,
            "verdict": _verdict(d, p, sigma, alpha, settings, fam.limits, n_sim), "method": method}


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
        use = sub["use_threads"][0]
        use_text = units.count(int(use), "thread") if str(use).isdigit() else f"{use} threads"
        if sub["verdict"][0].startswith("single numbers"):  # one run per setting: a look, not a finding
            lead = (f"{use_text} measured best, not decided (one run per setting"
                    + (f"; {near} not clearly worse" if near else "") + ")")
        else:
            lead = f"use {use_text}" + (f" ({near} not significantly worse)" if near else "")
        out.append(f"{group}, {limit}: {lead}; " + "; ".join(parts) + ".")
    return out


__all__ = ["thread_advice", "advice_sentences"]
