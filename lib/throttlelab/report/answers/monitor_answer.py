"""The answer of the monitor-log report (notebook 02): which CPU limit keeps throttling under the alert line.

Built from the fields of :func:`throttlelab.analysis.runs.ingest_summary.ingest_summary` (its ``by_limit`` table and
line accounting).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from throttlelab import units
from throttlelab.report.answers.answer_text import Answer, how_sure

#: Share of throttled CFS periods at which the usual alert (kube-prometheus' CPUThrottlingHigh) fires.
ALERT = 0.25


def monitor_answer(summary: Any, *, inputs: int) -> Answer:
    """The smallest limit throttled below the alert line (or that the limit must rise); two headlines.

    Parameters
    ----------
    summary
        :class:`~throttlelab.analysis.runs.ingest_summary.IngestSummary` of the inputs.
    inputs
        How many inputs were read.
    """
    heads = [f"Read {units.count(summary.samples, 'monitor sample')} from {units.count(inputs, 'input')}; "
             f"{summary.lines_skipped:,d} of {units.count(summary.lines_total, 'input line')} skipped, each counted "
             "by reason."]
    rests = (f"{units.count(summary.samples, 'monitor sample')} from {units.count(inputs, 'log')}; "
             f"{summary.lines_skipped:,d} of {units.count(summary.lines_total, 'line')} skipped, each counted by reason")
    by_limit = summary.by_limit
    rows = (by_limit.filter(pl.col("throttled_ratio").is_not_null(), pl.col("limit_cores").is_not_null())
            .sort("limit_cores") if by_limit.height else by_limit)
    if not rows.height:
        return Answer("Nothing to say about throttling: the inputs hold no CPU limit with CFS counters.",
                      rests_on=rests, headlines=tuple(heads))
    worst = rows.sort("throttled_ratio", descending=True).row(0, named=True)
    heads.append(f"Most throttled at {units.cores(worst['limit_cores'])}: {units.percent(worst['throttled_ratio'], 3)} "
                 f"of CFS periods ({_periods(worst)}), using {units.cores(round(worst['effective_cores'], 2))} on "
                 "average.")
    below = rows.filter(pl.col("throttled_ratio") <= ALERT)
    alert = f"the usual alert fires at {units.percent(ALERT)}"
    if below.height and below.height < rows.height:
        b = below.row(0, named=True)
        action = (f"Give it at least {units.cores(b['limit_cores'])}: there {units.percent(b['throttled_ratio'])} of "
                  f"CFS periods were throttled, against {units.percent(worst['throttled_ratio'])} at "
                  f"{units.cores(worst['limit_cores'])} ({alert}).")
        shown = b
    elif below.height:
        action = (f"Keep the limit: at most {units.percent(worst['throttled_ratio'])} of CFS periods were throttled "
                  f"({alert}).")
        shown = worst
    else:
        action = (f"Raise the CPU limit above {units.cores(rows['limit_cores'].max())}, or cut the work per period: "
                  f"{units.percent(worst['throttled_ratio'])} of CFS periods were throttled at "
                  f"{units.cores(worst['limit_cores'])} ({alert}).")
        shown = worst
    sure = how_sure([(f"clear, measured directly: {_periods(shown)} over {units.seconds(shown['seconds'], 2)} at "
                      f"{units.cores(shown['limit_cores'])}")], action=action)
    method = (f"Per CPU limit: the share of CFS periods in which the cgroup was throttled (its nr_throttled over "
              f"nr_periods counters), and the CPU it used (usage over time). The alert line is kube-prometheus' "
              f"CPUThrottlingHigh, which fires above {units.percent(ALERT)} of periods throttled.")
    return Answer(action, sure, rests_on=rests, method=method, headlines=tuple(heads))


def _periods(row: dict) -> str:
    """``145 of 146 periods`` (or the share alone when the log has no period counts)."""
    if row.get("nr_periods") is None or row.get("nr_throttled") is None:
        return units.percent(row["throttled_ratio"]) + " of periods"
    return f"{row['nr_throttled']:,d} of {units.count(row['nr_periods'], 'period')}"
