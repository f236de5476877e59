"""Tables of an adaptive sweep for reports: the runs in the order chosen and why, and the decisions."""

from __future__ import annotations

import polars as pl

from throttlelab.experiment.sweeps.adaptive.adaptive import AdaptiveStatus
from throttlelab.experiment.sweeps.adaptive.adaptive_decisions import limit_label


def run_order_table(runs: pl.DataFrame) -> pl.DataFrame:
    """One row per run in the order it ran: ``step``, the cell, its wall time and ``chosen_because``.

    Examples
    --------
    >>> import datetime as dt
    >>> t0 = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    >>> runs = pl.DataFrame({"started_at": [t0 + dt.timedelta(seconds=s) for s in (2, 1)],
    ...     "cpu_limit_cores": [None, 0.5], "threads": ["2", "2"], "contention": [0.0, 0.0],
    ...     "replicate": [0, 0], "status": ["ok", "ok"], "wall_seconds": [1.0, 2.5],
    ...     "warmup": [False, False], "chosen_because": ["b", "a"]})
    >>> run_order_table(runs).select("step", "limit", "wall_seconds", "chosen_because").rows()
    [(1, '0.5', 2.5, 'a'), (2, 'unlimited', 1.0, 'b')]
    """
    c = pl.col
    return (
        runs.sort("started_at", nulls_last=True)
        .with_row_index("step", offset=1)
        .with_columns(
            step=c("step").cast(pl.Int64),
            limit=pl.when(c("cpu_limit_cores").is_null()).then(pl.lit("unlimited"))
            .otherwise(c("cpu_limit_cores").round(3).cast(pl.String)),
            chosen_because=c("chosen_because").fill_null("full grid"),
        )
        .select("step", "limit", "threads", "contention", "replicate", "status", "wall_seconds", "warmup",
                "chosen_because")
    )


def decisions_table(status: AdaptiveStatus) -> pl.DataFrame:
    """One row per decision: what it is about, the answer, its confidence, and whether it is still open.

    ``target`` is the confidence each decision must reach (the spec's
    ``confidence``; the sweep also needs all of them right together with it,
    ``AdaptiveStatus.joint``); ``runs_to_decide`` is a rough count of runs per
    pivotal cell that would decide an open decision.
    """
    rows = [{
        "decision": d.kind.replace("_", " "),
        "contention": d.contention,
        "limit": "" if d.kind == "knee" else limit_label(d.limit),
        "answer": d.answer,
        "confidence": d.confidence,
        "target": d.target,
        "state": "decided" if d.resolved else "open",
        "runs_to_decide": d.runs_to_decide,
    } for d in status.decisions or []]
    schema = {"decision": pl.String, "contention": pl.Float64, "limit": pl.String, "answer": pl.String,
              "confidence": pl.Float64, "target": pl.Float64, "state": pl.String, "runs_to_decide": pl.Int64}
    return pl.DataFrame(rows, schema=schema)


def answer_sentences(status: AdaptiveStatus, runs: pl.DataFrame) -> tuple[str, str]:
    """``(answer, rests_on)`` of an adaptive sweep's report: the decisions first, each with its confidence.

    Dead zones found are listed; when every dead-zone answer is ``no``, the
    least sure of them is named.  ``rests_on`` gives the ok runs, their spread
    over cells and the budget.
    """
    def sure(d) -> str:
        return f"{d.confidence:.0%} sure" + ("" if d.resolved else ", open")

    decisions = status.decisions or []
    said = [f"knee: {d.answer} cores ({sure(d)})" if d.kind == "knee" else f"{d.subject}: {d.answer} ({sure(d)})"
            for d in decisions if d.kind != "dead_zone" or d.answer == "yes"]
    zones = [d for d in decisions if d.kind == "dead_zone"]
    if zones and all(d.answer == "no" for d in zones):
        least = min(zones, key=lambda d: d.confidence)
        said.append(f"no dead zone (least sure: {least.subject.replace('dead zone ', '')}, {sure(least)})")
    joint = f". All right together: {status.joint:.0%}." if status.joint is not None else "."
    ok = runs.filter((pl.col("status") == "ok") & ~pl.col("warmup").fill_null(False))
    per_cell = ok.group_by("cpu_limit_cores", "threads", "contention").len()["len"] if ok.height else pl.Series([0])
    rests_on = (f"{ok.height} runs chosen adaptively ({per_cell.min()}-{per_cell.max()} per cell) of a "
                f"{status.budget}-run budget (full grid {status.grid_runs}); {len(status.open)} of "
                f"{len(decisions)} decisions open")
    return "; ".join(said) + joint, rests_on
