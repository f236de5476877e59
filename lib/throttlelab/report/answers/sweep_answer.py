"""The answer of the sweep report (notebook 01): what the sweep measured, its fastest setting, what is left to test.

Built from the sweep spec, its run table and :func:`~throttlelab.experiment.sweeps.sweep_summary.sweep_summary`;
an adaptive sweep's answer is its decisions (:func:`~throttlelab.experiment.sweeps.adaptive.adaptive_tables.answer_sentences`).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from throttlelab import units
from throttlelab.experiment.sweeps.adaptive import answer_sentences
from throttlelab.report.answers.answer_text import Answer, how_sure, threads_words


def sweep_answer(sweep: Any, plan: list[Any], runs: pl.DataFrame, summary: pl.DataFrame, *,
                 adaptive_status: Any = None, skipped_reason: str | None = None) -> Answer:
    """The sweep's answer and its one headline.

    Parameters
    ----------
    sweep, plan
        The sweep spec and its planned runs.
    runs
        The stored runs of this sweep.
    summary
        Per point (limit, threads): runs, ok, median wall time, throttled share.
    adaptive_status
        The adaptive design's status (its decisions are the answer), or ``None``.
    skipped_reason
        Why runs were not run here, or ``None``.
    """
    ok = runs.filter((pl.col("status") == "ok") & ~pl.col("warmup").fill_null(False)) if runs.height else runs
    limited = summary.filter(pl.col("cpu_limit_cores").is_not_null() & pl.col("throttled_ratio").is_not_null()) \
        if summary.height else summary
    heads = []
    if adaptive_status is not None and adaptive_status.decisions:
        knee = next((d for d in adaptive_status.decisions if d.kind == "knee" and not d.contention), None)
        if knee is not None:
            heads.append(f"Adaptive sweep {sweep.name}: knee at {units.cores_label(knee.answer)} "
                         f"({units.percent(knee.confidence)} sure) after {units.count(adaptive_status.runs_used, 'run')}"
                         f" (full grid {adaptive_status.grid_runs}); {len(adaptive_status.open)} of "
                         f"{len(adaptive_status.decisions)} decisions still open")
        text, rests_on = answer_sentences(adaptive_status, runs)
        return Answer(text, rests_on=f"{rests_on}; backend {sweep.backend}", headlines=tuple(heads))
    if ok.height:
        worst = limited.sort("throttled_ratio", descending=True).row(0, named=True) if limited.height else None
        measured = sum(1 for p in plan if not p.warmup)
        heads.append(f"Local sweep {sweep.name}: {ok.height} of {units.count(measured, 'measured run')} ok" + (
            f"; at {units.cores(worst['cpu_limit_cores'])} with {threads_words(worst['threads'])} "
            f"{units.percent(worst['throttled_ratio'])} of CFS periods were throttled, median wall time "
            f"{units.seconds(worst['median_wall_seconds'])}" if worst else ""))
    elif skipped_reason:
        heads.append(f"Local sweep {sweep.name} not run here: {skipped_reason}")
    timed = summary.filter(pl.col("median_wall_seconds").is_not_null()) if summary.height else summary
    if not timed.height:
        return Answer(f"Not measured yet: no run of {sweep.name} finished here"
                      + (f" ({skipped_reason})." if skipped_reason else "."),
                      rests_on=f"{units.count(runs.height, 'stored run')}", headlines=tuple(heads))
    best = timed.sort("median_wall_seconds").row(0, named=True)
    action = (f"Fastest measured: {units.cores(best['cpu_limit_cores'])} with {threads_words(best['threads'])}, "
              f"{units.seconds(best['median_wall_seconds'], 2)} per run (median).")
    sure = how_sure([f"{units.count(ok.height, 'run')}, {sweep.replicates} per setting"],
                    [("not yet clear: the CPU-limit and thread-count reports test the gaps", "not yet clear")],
                    action=action)
    method = (f"Each run in its own cgroup with the run's CFS quota; {sweep.warmup} warm-up run(s) left out; the "
              f"median wall time per limit and thread count. Tests of the differences (with intervals) are in the "
              f"CPU-limit and thread-count reports on the same runs.")
    return Answer(action, sure, rests_on=f"{units.count(ok.height, 'measured run')} ok, {sweep.replicates} "
                                         f"replicate(s) per point, backend {sweep.backend}",
                  method=method, headlines=tuple(heads))
