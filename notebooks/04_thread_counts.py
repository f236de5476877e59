# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: tags,-all
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
# # 04 · Thread counts: at each CPU limit, which thread count is fastest, and does `auto` cost time?
#
# For each CPU limit this notebook finds the fastest **explicit** thread count (with the interval of its time and the
# counts the data cannot tell apart from it), compares `auto` against it (effect size, interval, p-value), draws a
# limits x threads heatmap and gives a recommendation table (limit, threads, expected time with interval,
# core-seconds). It needs runs with explicit thread counts, e.g. a local sweep (`runs_path` = a run-store folder under
# `data/raw/`). The default input, the published ffmpeg sweep, only ran `-threads auto`: the notebook then says so.

# %% tags=["parameters"]
runs_path: str = ""  # runs table: "": published ffmpeg sweep (auto only); a .parquet/.csv runs table or a run-store folder (data/raw/<experiment>)
machine_cores: float = 0.0  # host cores (position of 'unlimited'); 0: read from the runs' node column
alpha: float = 0.05  # significance level of the thread-count comparisons
prior_cv: float = 0.20  # run-to-run noise assumed when no cell has replicates
output_dir: str = "../data/processed/04_thread_counts"  # where tables, results.json and headlines go

# %% [markdown]
# ## Setup
# Imports, the output folder, and the offline chart renderer.

# %%
import polars as pl
from IPython.display import Markdown, display

from throttlelab.analysis.prepare import prepare_runs
from throttlelab.analysis.runs_input import load_runs
from throttlelab.analysis.thread_counts import analyse_thread_counts, thread_results
from throttlelab.report import notebook as tn
from throttlelab.report.charts.threads import auto_vs_best_chart, thread_heatmap

out = tn.start(output_dir, name="04_thread_counts")

# %%
prepared = prepare_runs(load_runs(runs_path), machine_cores=machine_cores or None)
tn.show_table(prepared.summary(), title="Runs analysed")
tn.save_table(prepared.excluded, "excluded_runs")
analyses = analyse_thread_counts(prepared.runs, alpha=alpha, prior_cv=prior_cv)
for a in analyses:
    if a.note:
        display(Markdown(f"**{a.label}:** {a.note}"))

# %% [markdown]
# ## Limits x threads
# **What the chart shows:** the geometric-mean wall time of every (CPU limit, thread count) cell, darker = faster; the
# number in each cell is the time in seconds. **How to read it:** along a row, the darkest cell is the best thread count
# at that limit; a dark diagonal means "threads = cores" works; `auto` is the right-most column.

# %%
for a in analyses:
    display(thread_heatmap(a, title=f"Wall time by CPU limit and thread count: {a.label}"))

# %% [markdown]
# ## `auto` against the best explicit thread count
# **What the chart shows:** per limit, how much slower (%) `auto` is than the best explicit thread count, with its 95%
# interval (dashed line: no difference). **How to read it:** an interval entirely above 0 means `auto` costs time at
# that limit; an interval across 0 means the data cannot tell. The best count is picked after looking, which flatters
# it slightly. Empty when the runs have no explicit thread count.

# %%
for a in analyses:
    if a.has_explicit_threads and a.has_auto:
        display(auto_vs_best_chart(a, title=f"auto vs best explicit thread count: {a.label}"))
    else:
        display(Markdown(f"*{a.label}: nothing to compare ({'no explicit thread counts' if not a.has_explicit_threads else 'no auto runs'}).*"))

# %% [markdown]
# ## Best thread count and recommendation per limit

# %%
best = pl.concat([a.table() for a in analyses], how="diagonal_relaxed")
tn.save_table(best, "best_threads")
recommendations = pl.concat([a.recommendations() for a in analyses], how="diagonal_relaxed")
tn.save_table(recommendations, "recommendations")
tn.show_table(best, title="Best thread count per CPU limit", empty="no runs")
tn.show_table(recommendations, title="Recommended thread count per CPU limit", empty="no runs")

# %%
for a in analyses[:2]:
    if not a.has_explicit_threads:
        tn.headline(f"{a.label}: only `auto` thread counts in the data — no thread-count comparison possible")
        continue
    worst = max((c for c in a.limits if c.auto_vs_best_pct is not None), key=lambda c: c.auto_vs_best_pct, default=None)
    if worst is not None:
        tn.headline(f"{a.label}: at {worst.limit_label}, auto is {worst.auto_vs_best_pct:+.0f}% "
                    f"(95% CI {worst.auto_vs_best_ci_pct.low:+.0f}% to {worst.auto_vs_best_ci_pct.high:+.0f}%, "
                    f"p = {worst.auto_vs_best_p_value:.3g}) vs {worst.best_threads} threads")
    cheapest = min((c for c in a.limits if c.core_seconds is not None), key=lambda c: c.core_seconds, default=None)
    if cheapest is not None:
        tn.headline(f"{a.label}: cheapest per run: {cheapest.limit_label} with {cheapest.recommended_threads} threads, "
                    f"{cheapest.recommended_seconds:.3g} s, {cheapest.core_seconds:.3g} core-seconds")

first = analyses[0] if analyses else None
n_runs = prepared.summary()["runs_analysed"]
source = runs_path.rstrip("/").rsplit("/", 1)[-1] or "published ffmpeg sweep"
if first is None:
    tn.answer("Too few runs to decide: the input holds no usable run.", rests_on=f"0 runs ({source})")
elif not first.has_explicit_threads:
    tn.answer(f"Too few to decide for {first.label}: every run used threads=auto, so no thread count can be "
              "compared; a sweep with explicit thread counts (e.g. 1, 2, 4, 8 at each limit, 3 runs each) would decide it.",
              rests_on=f"{n_runs} runs, all threads=auto ({source})")
else:
    cheap = min((c for c in first.limits if c.core_seconds is not None), key=lambda c: c.core_seconds, default=None)
    worst = max((c for c in first.limits if c.auto_vs_best_pct is not None), key=lambda c: c.auto_vs_best_pct,
                default=None)
    lead = (f"{first.label}: run {cheap.recommended_threads} threads at {cheap.limit_label} "
            f"({cheap.recommended_seconds:.3g} s, {cheap.core_seconds:.3g} core-seconds per run)") if cheap else first.label
    cost = (f"; at {worst.limit_label} auto is {worst.auto_vs_best_pct:+.0f}% against {worst.best_threads} threads "
            f"(95% CI {worst.auto_vs_best_ci_pct.low:+.0f}% to {worst.auto_vs_best_ci_pct.high:+.0f}%)") if worst else ""
    tn.answer(lead + cost + ".", rests_on=f"{n_runs} runs ({source}); alpha {alpha}")

tn.write_results({
    "input": {"runs_path": runs_path or "published:ffmpeg_cpu_limit_sweep.csv"},
    "runs": prepared.summary(),
    "parameters": {"alpha": alpha, "prior_cv": prior_cv},
    "thread_comparison_possible": any(a.has_explicit_threads for a in analyses),
    "groups": [thread_results(a) for a in analyses],
})
