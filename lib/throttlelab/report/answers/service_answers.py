"""The answers of the service reports: a noisy neighbour (notebook 05) and a semaphore on a heavy stage (06).

Built from the tables and fit rows the notebooks compute, so a change of a procedure flows through to the words.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from throttlelab import units
from throttlelab.report.answers.answer_text import Answer, how_sure


def contention_answer(table1: pl.DataFrame, fit: dict[str, Any], *, n_boot: int, requests: Any = None) -> Answer:
    """Where response time takes off against the neighbour's share, from the paper's table 1 and its fit.

    Parameters
    ----------
    table1
        :func:`throttlelab.analysis.latency.contention_paper.paper_table1`.
    fit
        The hyperbolic fit's row over all rates (``knee``, ``knee_low``, ``knee_high``, ``r2``) of
        :func:`throttlelab.analysis.latency.response_curves.fit_summary`.
    n_boot
        Bootstrap resamples of the fit (for the method).
    requests
        The measured requests, when there are any (named in what the answer rests on).
    """
    worst = table1.sort("percent_printed", descending=True, nulls_last=True).row(0, named=True)
    knee = units.percent(fit["knee"])
    action = (f"Keep a noisy neighbour below about {knee} of the node's CPU: above it response time takes off, up to "
              f"{units.pct(worst['percent_printed'])} slower at {units.percent(worst['contention'])}.")
    interval = f"95% interval {units.percent(fit['knee_low'])} to {units.percent(fit['knee_high'])}"
    sure = how_sure([f"{table1.height} published means, one per setting"],
                    [(f"the take-off is clear ({interval})", "the take-off is clear"), "run-to-run noise unknown"],
                    action=action)
    rests = (f"the paper's table 1: {table1.height} published means ({table1['requests_per_30s'].n_unique()} "
             f"request rates x {table1['contention'].n_unique()} stress shares)"
             + (f"; {requests.height:,d} measured requests" if requests is not None else ""))
    method = (f"**Take-off (knee):** a hyperbolic fit R = a + b/(c - x) of mean response time R against the "
              f"neighbour's share x over all request rates (R² {units.number(fit['r2'], 2)}); the knee is where the "
              f"fitted slope equals its average slope over the measured shares (Kneedle); its interval by residual "
              f"bootstrap ({n_boot} resamples). The paper's printed % increases are checked against its milliseconds, "
              "within the range their rounding allows.")
    return Answer(action, sure, rests_on=rests, method=method, terms=("bootstrap",))


def concurrency_answer(repro: pl.DataFrame, *, reproduced: int, measured_requests: int | None = None,
                       load: int = 30) -> Answer:
    """Whether a semaphore on the CPU-heavy stage helps, from the wiki's rebuilt %-change table at ``load`` VUs.

    Parameters
    ----------
    repro
        :func:`throttlelab.analysis.latency.concurrency.wiki_reproduction` (``load``, ``stage``, ``stat``,
        ``percent_change``, ``base_seconds``, ``other_seconds``).
    reproduced
        How many printed cells reproduce exactly.
    measured_requests
        Measured requests, when there are any (named in what the answer rests on).
    """
    at = repro.filter(pl.col("load") == load, pl.col("stat") == "avg")
    total = at.filter(pl.col("stage") == "total").row(0, named=True)
    light = at.filter(pl.col("stage") != "total").sort("percent_change")
    best = light.row(0, named=True) if light.height else None
    change = total["percent_change"]
    verdict = "Yes" if change < 0 else "No"
    action = (f"{verdict}: a semaphore of 4 on the CPU-heavy stage. At {load} virtual users the mean total time "
              f"{'fell' if change < 0 else 'rose'} {units.pct(abs(change))} ({units.seconds(total['base_seconds'], 2)} "
              f"to {units.seconds(total['other_seconds'], 2)})"
              + (f", the {best['stage']} stage most ({units.pct(best['percent_change'], sign=True)})." if best else "."))
    sure = how_sure(["one published run per setting"], [("so no interval: not yet clear", "not yet clear")],
                    action=action)
    rests = (f"the wiki's k6 summaries (8 workers, one run per load); {reproduced} of {repro.height} printed "
             f"%-changes reproduce exactly" + (f"; {measured_requests:,d} measured requests" if measured_requests else ""))
    method = ("**%-change** = (with semaphore - without) / without x 100, from the wiki's own per-run k6 summaries; "
              "each printed cell is checked against them. One k6 run per configuration gives no run-to-run noise, so "
              "no test. Measured stage timings (when given): Mann-Whitney tests with Holm's correction describe the "
              "requests; the verdict compares run means (Welch t on log run means, Bonferroni over the cells).")
    return Answer(action, sure, rests_on=rests, method=method, terms=("Holm", "Bonferroni"))
