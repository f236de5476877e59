# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: tags,jupyter,-all
#     formats: ipynb,py:percent
#     notebook_metadata_filter: kernelspec,jupytext,-jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Thread counts: at each CPU limit, which thread count is best, and does `auto` cost?

# %% tags=["parameters"]
runs_path: str = ""  # runs table: "": published ffmpeg sweep (auto only); "published:automaxprocs"; a .parquet/.csv runs table or a run-store folder (data/raw/<experiment>)
metric: str = "wall_seconds"  # response metric: wall_seconds, cpu_seconds, throughput_rps, items_per_second, latency_p50/p90/p99/p999_seconds
advice_metrics: str = ""  # comma-separated metrics for the thread advice (e.g. "throughput_rps,latency_p99_seconds"); "": metric only
machine_cores: float = 0.0  # host cores (position of 'unlimited', the host-cores comparison); 0: read from the runs' node column
alpha: float = 0.05  # significance level of the thread-count comparisons
ceiling_cv: float = 0.15  # one number per cell: a gap that survives this run-to-run noise is "clearly" worse/better
floor_cv: float = 0.05  # one number per cell: a gap that would drown in this noise "cannot be told apart"
output_dir: str = "../data/processed/04_thread_counts"  # where tables, results.json and headlines go

# %% tags=["setup"] jupyter={"source_hidden": true}
import polars as pl
from IPython.display import Markdown, display

from throttlelab.analysis.runs import best_threads_view, recommendations_view
from throttlelab.analysis.runs import prepare_runs
from throttlelab.analysis.runs import load_runs
from throttlelab.analysis.threads import thread_advice
from throttlelab.analysis.threads import single_number_table, thread_count_results
from throttlelab.analysis.threads import analyse_thread_counts
from throttlelab.report import notebook as tn
from throttlelab.report.charts import auto_vs_best_chart, thread_heatmap
from throttlelab.report.answers import per_limit_lines, thread_count_answer

out = tn.start(output_dir, name="04_thread_counts")

# %% [markdown]
# ## What this notebook does
#
# For each CPU limit this notebook finds the best **explicit** thread count by the chosen response `metric` (wall time
# by default; throughput, higher is better; or a latency percentile, lower is better), with its interval and the
# counts the data cannot tell apart from it, compares `auto` against it (effect size, interval, p-value), draws a
# limits x threads heatmap and gives a recommendation table. For a service (`advice_metrics`), it says which thread
# count (GOMAXPROCS) to use at each limit and how much `auto` and a thread count equal to the host's cores lose against
# it, in throughput and tail latency. A table with one number per cell (a published table) gets verdicts that say what
# single numbers can and cannot decide, instead of an invented noise level. It needs runs with explicit thread counts,
# e.g. a local sweep (`runs_path` = a run-store folder under `data/raw/`) or `published:automaxprocs`. The default
# input, the published ffmpeg sweep, only ran `-threads auto`: the notebook then says so.

# %%
runs = load_runs(runs_path)
prepared = prepare_runs(runs, machine_cores=machine_cores or None, metric=metric)
m = prepared.metric
display(Markdown(f"**Response metric:** {m.label} ({m.unit}, {m.direction}); `{m.name}`."))
tn.show_table(prepared.summary(), title="Runs analysed")
tn.save_table(prepared.excluded, "excluded_runs")
analyses = analyse_thread_counts(prepared.runs, alpha=alpha, metric=m, ceiling_cv=ceiling_cv, floor_cv=floor_cv)
single = [a for a in analyses if a.single_numbers is not None]
for a in analyses:
    if a.note and a not in single:
        display(Markdown(f"**{a.label}:** {a.note}"))
    if a.has_explicit_threads and a not in single:
        display(Markdown(f"**{a.label}, method:** {a.method}."))
    for o in a.outlying_runs:
        display(Markdown(f"*Outlying run {o.run} at {o.level}: {o.deviation_pct:+.0f}% from the other runs of its cell "
                         f"(robust z {o.robust_z:.1f}); flagged.*"))

verdicts = single_number_table(analyses)  # one number per cell: what single numbers can decide, per group
tn.save_table(verdicts, "single_number_verdicts")
advice_list = [x.strip() for x in advice_metrics.split(",") if x.strip()]
advice = thread_advice(runs, metric=m.name, advice_metrics=tuple(advice_list), machine_cores=machine_cores or None,
                       alpha=alpha, ceiling_cv=ceiling_cv, floor_cv=floor_cv, analyses=analyses)
_ = tn.save_table(advice, "thread_advice")

# %% [markdown]
# ## Thread count per limit
# Per limit: the thread count to use and what `auto` and the host's core count lose against it (thread advice), and,
# for a table with one number per cell, which thread counts clearly lose and which cannot be told apart. Details and
# the procedures follow below.

# %%
lines = per_limit_lines(analyses, single, verdicts, advice, m, ceiling_cv=ceiling_cv, floor_cv=floor_cv)
display(Markdown("\n".join(f"- {s}" for s in lines) or "*No thread-count answer: see the notes above.*"))

# %% [markdown]
# ## What single numbers can decide
# Where no (limit, threads) cell has more than one run (a published table), there is no run-to-run noise to estimate.
# Each thread count is compared with the one equal to the limit (rounded up; the best one where that is missing) by
# its **break-even noise**: the run-to-run variation under which its gap would still be significant (5% family-wise).
# *Clearly worse/better* survives `ceiling_cv` (15%) noise; *cannot be told apart* would drown in `floor_cv` (5%);
# *undecided* depends on noise the table does not show, and the table says how many runs per cell would decide it.
# `change_pct` is the metric's own change (throughput -50% is half the throughput). A count is *near best* unless a
# verdict calls it clearly worse (against the reference, or against the best measured value with the range of all
# cells at that limit as the bar). One number per cell gives no interval, p-value or probability anywhere below: the
# best measured value is named as such, not as a finding.

# %%
if single:
    tn.show_table(verdicts.select("group", "limit_label", "threads", pl.col("metric_value").alias(m.name),
                                  "reference_threads", "change_pct", "breakeven_cv_pct", "verdict",
                                  "replicates_needed", "near_best"),
                  title="What one number per cell can decide")
else:
    display(Markdown("*Every group has replicated cells: the comparisons below use the measured run-to-run noise.*"))

# %% [markdown]
# ## Limits x threads
# **What the chart shows:** the geometric mean of the metric in every (CPU limit, thread count) cell, darker = better
# (faster, or more throughput); the number in each cell is the value in the metric's unit. **How to read it:** along a
# row, the darkest cell is the best thread count at that limit; a dark diagonal means "threads = cores" works; `auto`
# is the right-most column.

# %%
for a in analyses:
    display(thread_heatmap(a, title=f"{m.label.capitalize()} by CPU limit and thread count: {a.label}"))

# %% [markdown]
# ## `auto` against the best explicit thread count
# **What the chart shows:** per limit, how much slower (%) `auto` is than the best explicit thread count, with its 95%
# interval (dashed line: no difference); for another metric, the change of that metric (throughput: below 0 is worse).
# **How to read it:** an interval entirely on the worse side means `auto` costs at that limit; an interval across 0
# means the data cannot tell. The interval holds for every limit at once (see the method), so it also holds for the
# limit with the largest gap. `probability_best` in the table gives, for each explicit count, how likely it is the
# fastest given that limit's noise: a best count at 40% is a guess, at 95% a finding. With no
# replicated cell the answer is "too few to decide" (no p-value from an assumed noise). Empty when the runs have no
# explicit thread count.

# %% [markdown] tags=["method"]
# **One family for the whole sweep.** The answer speaks for every limit at once, so its error is controlled over the
# whole sweep, not limit by limit: at each limit every setting (the explicit counts and `auto`) is compared pairwise,
# studentised with that limit's run-to-run noise, against the largest gap among equal settings (Tukey-Kramer's
# studentised range, simulated with the noise's degrees of freedom, so picking the best after looking is paid for),
# and the limits are combined by Bonferroni (with 8 limits each is tested at 0.05 / 8). "Slower than the best", `auto`
# against the best and the thread advice are all pairs of that family, and the intervals are simultaneous over every
# limit, so the interval of the limit the headline picks (the largest gap) still holds. The count to run is `auto`
# unless `auto` is shown slower than the best explicit count. Judged limit by limit, 23.5% of simulated null sweeps of
# 8 limits (3 runs per cell, noise growing 3% -> 25%, no thread effect) claim something somewhere; with the sweep-wide
# family 3.0% do (1.5-6.5% with outlying runs, heavy tails, 2 runs, sparse replicates, equal noise or other shapes of
# noise growth; 200 sweeps per scenario, Monte Carlo standard error 1.5 points), while a count that is really 20%
# slower (5% noise, 3 runs) is still called slower at 90% of limits (44% with noise growing 3% -> 25%; statistics
# battery).
#
# **Noise per limit.** Run-to-run noise grows with the limit (more cores, more scheduling noise). Each limit's noise
# is the log-linear trend of the noise across the limits (the pooled noise when the runs show no trend), with the
# degrees of freedom the trend has at that limit (fewer at the ends of the sweep), and never below what the limit's
# own replicated cells measured (a guard when the trend has the wrong shape). The `noise_cv_pct` column is each
# limit's noise. Outlying runs are flagged (listed above) and left out where their cell keeps three runs.
#
# **Zero run-to-run noise.** For a deterministic metric (e.g. `cpu_seconds` of fixed work) replicated runs are
# identical: the noise is zero and every difference is exact. Then no test is needed or possible: the tables give the
# exact differences with no interval and no p-value, and the method says so.

# %%
for a in analyses:
    if a.has_explicit_threads and a.has_auto:
        display(auto_vs_best_chart(a, title=f"auto vs best explicit thread count: {a.label}"))
    else:
        tn.not_run(f"{a.label}: nothing to compare ({'no explicit thread counts' if not a.has_explicit_threads else 'no auto runs'})")

# %% [markdown]
# ## Best thread count and recommendation per limit

# %%
best = pl.concat([best_threads_view(a.table(), m) for a in analyses], how="diagonal_relaxed")
tn.save_table(best, "best_threads")
recommendations = pl.concat([recommendations_view(a.recommendations(), m) for a in analyses], how="diagonal_relaxed")
tn.save_table(recommendations, "recommendations")
tn.show_table(best, title="Best thread count per CPU limit", empty="no runs")
tn.show_table(recommendations, title="Recommended thread count per CPU limit", empty="no runs")

# %% [markdown]
# ## Thread advice
# Per limit: the thread count to use (best by `metric`) and, in every advice metric, how much `auto` and a thread count
# equal to the host's cores lose against it: change of the metric (%), 95% interval and p-value from the runs
# (t-test on the log scale, the run as the unit), or the single-number verdict where cells have one run each.

# %%
tn.show_table(advice, title="Thread advice per CPU limit",
              empty="no explicit thread count, or neither `auto` nor the host's core count was run")

# %%
tn.answer(thread_count_answer(analyses, single, verdicts, advice, prepared, runs_path=runs_path, alpha=alpha,
                              ceiling_cv=ceiling_cv, floor_cv=floor_cv))
tn.write_results(thread_count_results(prepared, analyses, runs_path=runs_path, thread_advice=advice))
