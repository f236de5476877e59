"""Row classes of the measured sections' tables (notebooks 05 and 06), built from shared column groups.

The tables of the measured sections (:mod:`~throttlelab.analysis.runs.measured_sections`)
share column groups: the configuration and load, request counts, the run-level
test of :func:`~throttlelab.analysis.stats.run_level.run_level_columns`, latency
statistics with their intervals.  Each row class is built from those groups by
:func:`~throttlelab.result_tables.row_class`, so a column is described once.
"""

from __future__ import annotations

from throttlelab.result_tables import row_class

M = __name__
CONFIG_LOAD = [("config", str, "The configuration measured (e.g. ``semaphore=4``, ``default``)."),
               ("load", float, "The load: request rate (requests/s) or virtual users.")]
COUNTS = [("n", int, "Requests (all)."), ("n_ok", int, "Answered requests (status ``ok``)."),
          ("n_failed", int, "Requests not answered ok."), ("runs", int, "Runs the requests came from."),
          ("failed_rate", float, "``n_failed / n``."),
          ("failed_by_status", str, "Failures by kind, e.g. ``timeout=2, refused=1``.")]
RUN_LEVEL = [
    ("runs", int | None, "Runs (the experimental units) on this side of the comparison (``null``: the baseline row)."),
    ("runs_baseline", int | None, "Runs of the baseline."),
    ("run_change_percent", float, "Change of the per-run statistic against the baseline, percent."),
    ("run_change_low", float, "Lower bound of its interval (Bonferroni over the group's comparisons)."),
    ("run_change_high", float, "Upper bound of that interval."),
    ("run_p_value", float, "Welch t p-value on the per-run statistics (``null``: too few runs)."),
    ("run_p_bonferroni", float, "That p-value times the comparisons of the group (at most 1)."),
    ("run_verdict", str | None, "The run-level verdict (the one to trust: runs are the units)."),
    ("runs_needed_for_10pct", int | None, "Runs per side that would detect a 10% change with 80% power."),
    ("outlying_runs", str | None, "Runs flagged as outlying (robust scale), comma-separated."),
]


def stat_columns(stats: tuple[str, ...], what: str = "response time of answered requests") -> list:
    """``<stat>_seconds``, ``<stat>_low``, ``<stat>_high`` per statistic; every one but ``mean`` optional."""
    out = []
    for s in stats:
        opt = () if s == "mean" else (None,)
        out += [(f"{s}_seconds", float, f"{s} {what}, requests pooled over the runs (s).", *opt),
                (f"{s}_low", float, f"Lower bound of the {s}'s 95% interval (how: ``interval``; ``null``: too few "
                                    "requests).", *opt),
                (f"{s}_high", float, "Upper bound of that interval.", *opt)]
    return out


INTERVALS = [("run_to_run_measured", bool, "Two or more runs with answered requests: the intervals include "
                                            "run-to-run variation. False: one run, run-to-run noise is unmeasured."),
             ("interval", str, "What the intervals rest on: the runs as the unit (pooled value, t interval on the "
                               "log per-run values, runs - 1 df) or one run's requests (order statistics; mean: "
                               "request bootstrap).")]


STATS = ("mean", "p50", "p90", "p95", "p99")
ContentionLatencyRow = row_class(
    "ContentionLatencyRow", "A row of the measured ``summary``: requests at one neighbour share.",
    CONFIG_LOAD, [("contention", float, "The neighbour's share of the node."),
                  ("neighbour_workers", int | None, "The neighbour's busy workers (``null``: not recorded).")],
    COUNTS, stat_columns(STATS), [("max_seconds", float, "Slowest answered request (s).")], INTERVALS, module=M)
WorkersLatencyRow = row_class(
    "WorkersLatencyRow", "A row of the worker-count ``summary``: requests at one neighbour worker count.",
    CONFIG_LOAD, [("neighbour_workers", int, "The neighbour's busy workers.")], COUNTS, stat_columns(STATS),
    [("max_seconds", float, "Slowest answered request (s).")], INTERVALS, module=M)
InflationRow = row_class(
    "InflationRow", "A row of ``inflation_mean``: response time at one neighbour share against share 0.",
    CONFIG_LOAD, [("contention", float, "The neighbour's share of the node."),
                  ("stat", str, "The statistic compared (``mean``)."),
                  ("value_seconds", float, "Its value at this share (s)."),
                  ("baseline_seconds", float, "Its value at share 0 (s)."),
                  ("ratio", float, "``value / baseline``."), ("ratio_low", float, "Lower bound (request bootstrap)."),
                  ("ratio_high", float, "Upper bound."), ("percent", float, "``100 x (ratio - 1)``."),
                  ("percent_low", float, "Lower bound, percent."), ("percent_high", float, "Upper bound, percent."),
                  ("p_value", float, "Request-level two-sided Mann-Whitney p-value (optimistic: requests of a run "
                                     "are not independent)."),
                  ("rank_biserial", float, "Rank-biserial effect (positive = slower)."),
                  ("n", int, "Answered requests at this share."), ("n_baseline", int, "Answered requests at 0.")],
    RUN_LEVEL, module=M)
WorkerRunRow = row_class(
    "WorkerRunRow", "A row of the worker-count ``runs``: one run's statistics (the run-to-run spread).",
    CONFIG_LOAD, [("neighbour_workers", int, "The neighbour's busy workers."), ("run_id", str, "The run."),
                  ("n_ok", int, "Answered requests."), ("mean_seconds", float, "Mean response time (s)."),
                  ("p90_seconds", float, "p90 (s).", None), ("p95_seconds", float, "p95 (s).", None)], module=M)
WorkerChangeRow = row_class(
    "WorkerChangeRow", "A row of the worker-count ``change``: one statistic against the baseline worker count.",
    CONFIG_LOAD, [("neighbour_workers", int, "The neighbour's busy workers."),
                  ("stat", str, "The statistic (``mean``, ``p90``, ``p95``)."),
                  ("value_seconds", float, "Its value (s)."), ("baseline_seconds", float, "At the baseline (s)."),
                  ("percent", float, "Change, percent."), ("percent_low", float, "Lower bound, percent."),
                  ("percent_high", float, "Upper bound, percent."),
                  ("interval", str, "How the interval was resampled (runs and requests, or requests of one run).")],
    module=M)
WorkerTestRow = row_class(
    "WorkerTestRow", "A row of the worker-count ``tests``: one worker count against the baseline.",
    CONFIG_LOAD, [("neighbour_workers", int, "The neighbour's busy workers."),
                  ("n", int, "Answered requests."), ("n_baseline", int, "Answered requests at the baseline."),
                  ("p_value", float, "Request-level two-sided Mann-Whitney p-value."),
                  ("rank_biserial", float, "Rank-biserial effect (positive = slower)."),
                  ("median_change_percent", float, "Change of the median, percent."),
                  ("median_change_low", float, "Lower bound, percent."),
                  ("median_change_high", float, "Upper bound, percent."),
                  ("p_holm", float, "Holm-adjusted over the group's worker counts."),
                  ("verdict", str, "Needs the test and, with replicates, a median-change interval excluding 0.")],
    RUN_LEVEL, module=M)
WorkerTrendRow = row_class(
    "WorkerTrendRow", "A row of the worker-count ``trend``: response time across every worker count.",
    CONFIG_LOAD, [("workers", str, "The worker counts, comma-separated."), ("n", int, "Answered requests."),
                  ("jt_statistic", float, "Jonckheere-Terpstra statistic (ordered alternative)."),
                  ("jt_z", float, "Its z."), ("jt_p", float, "Its p-value."),
                  ("jt_tau", float, "Concordance tau in [-1, 1] (the effect)."),
                  ("jt_tau_low", float, "Lower bound of tau."), ("jt_tau_high", float, "Upper bound of tau."),
                  ("spearman_rho", float, "Spearman's rho of per-request latency against the worker count."),
                  ("spearman_p", float, "Its p-value."),
                  ("slope_interval", str, "How the slope intervals were resampled.")],
    *[[(f"slope_{s}_ms_per_worker", float, f"Slope of the {s} per added worker (ms).", None),
       (f"slope_{s}_low", float, "Lower bound (bootstrap).", None), (f"slope_{s}_high", float, "Upper bound.", None)]
      for s in ("mean", "p90", "p95")],
    [("runs_per_workers_min", int, "Fewest runs at any worker count."),
     ("run_stat", str, "The per-run statistic of the run-level trend."),
     ("run_spearman_rho", float, "Spearman's rho of that statistic against the worker count (``null``: fewer "
                                 "than two runs per count)."),
     ("run_spearman_p", float, "Its p-value."), ("verdict", str, "The trend's verdict."),
     ("note", str, "What the verdict rests on.")], module=M)
StageTestRow = row_class(
    "StageTestRow", "A row of the measured ``tests``: one stage and load, the other configuration against the base.",
    [("load", float, "Virtual users."), ("stage", str, "Pipeline stage (``total``, ``cpu``, ...)."),
     ("n_base", int, "Timings of the base configuration."), ("n_other", int, "Timings of the other.")],
    RUN_LEVEL,
    [("u_statistic", float, "Mann-Whitney U (request level)."), ("p_value", float, "Its two-sided p-value."),
     ("rank_biserial", float, "Rank-biserial effect (positive = slower)."),
     ("median_change_percent", float, "Change of the median, percent."),
     ("p_holm", float, "Holm-adjusted over the stages and loads."),
     ("avg_change_percent", float, "Change of the mean, percent."),
     ("p95_change_percent", float, "Change of the p95, percent."),
     ("max_change_percent", float, "Change of the maximum, percent."),
     ("verdict", str, "``better``/``worse`` when the run-level test decides, else why not.")], module=M)
