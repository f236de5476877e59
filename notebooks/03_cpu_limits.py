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
# # CPU limits: how fast does a run get with more CPU, where does more CPU make it slower, and what limit should it get?

# %% tags=["parameters"]
runs_path: str = ""  # runs table: "": published ffmpeg sweep; a .parquet/.csv runs table or a run-store folder (data/raw/<experiment>)
metric: str = "wall_seconds"  # response metric: wall_seconds, cpu_seconds, throughput_rps, items_per_second, latency_p50/p90/p99/p999_seconds
machine_cores: float = 0.0  # host cores, used as the position of 'unlimited' in fits; 0: read from the runs' node column, else unlimited is left out of fits
threshold_pct: float = 5.0  # practical threshold: a dead zone is at least this much slower (%) than the best lower limit
knee_tolerance_pct: float = 10.0  # knee is the smallest limit within this % of the best time
alpha: float = 0.05  # family-wise error rate of the dead-zone tests, per group
n_boot: int = 200  # bootstrap refits per scaling model (intervals and bands)
n_sim: int = 20000  # Monte-Carlo draws for the dead-zone null distributions
seed: int = 0  # seed of every resampling
active_time_path: str = ""  # Go active-time table (CSV); "": published (seed 003); "none": skip the section
output_dir: str = "../data/processed/03_cpu_limits"  # where tables, results.json and headlines go

# %% tags=["setup"] jupyter={"source_hidden": true}
import polars as pl
from IPython.display import Markdown, display

from throttlelab.analysis import limits as cl
from throttlelab.analysis.limits import fit_active_time
from throttlelab.analysis.limits import active_time_results, cpu_limit_results
from throttlelab.analysis.runs import dead_zone_view, limits_view
from throttlelab.analysis.runs import limit_summary, prepare_runs
from throttlelab.analysis.runs import metric_ci, metric_value
from throttlelab.analysis.runs import load_runs
from throttlelab.ingest.published import load_go_active_time
from throttlelab.report import notebook as tn
from throttlelab.report.charts import active_time_chart
from throttlelab.report.charts import dead_zone_chart
from throttlelab.report.charts import scaling_chart
from throttlelab.report.answers import cpu_limit_answer

out = tn.start(output_dir, name="03_cpu_limits")

# %% [markdown]
# ## What this notebook does
#
# For each group of runs (workload, thread count, noisy-neighbour share) this notebook fits scaling models of run time
# against the CPU limit (Amdahl, the Universal Scalability Law, a CFS quota model), finds the knee and the cost in
# core-seconds, tests for **dead zones** (limits at which a run is slower than at a lower limit) with effect sizes,
# intervals and multiplicity-adjusted p-values, and recommends a limit. A last section fits the **active-time** view of
# the Go write-up (CPU time / wall time against the limit share). By default it reads the published ffmpeg sweep
# (both experiments of the write-up, pooled as replicates where their limits overlap). The response `metric` may be
# wall time (default), CPU time, throughput (higher is better) or a latency percentile: the analyses work on its cost
# (the value, or 1 / value when higher is better), so "slower" reads "worse", and the tables give the metric itself.

# %% [markdown]
# ## Runs analysed
# Warm-up runs, runs that did not finish `ok` and runs without a positive value of the metric are left out and
# counted below.

# %%
prepared = prepare_runs(load_runs(runs_path), machine_cores=machine_cores or None, metric=metric)
m = prepared.metric
display(Markdown(f"**Response metric:** {m.label} ({m.unit}, {m.direction}); `{m.name}`."))
tn.show_table(prepared.summary(), title="Runs analysed")
tn.save_table(prepared.excluded, "excluded_runs")
summary = limits_view(limit_summary(prepared.runs), m)
tn.save_table(summary, "limits")
tn.show_table(summary.drop("limit_order", "limit_x", strict=False), title="Wall time per CPU limit",
              empty="no usable runs")

# %%
groups = cl.analyse_cpu_limits(prepared, threshold_pct=threshold_pct, knee_tolerance_pct=knee_tolerance_pct,
                               alpha=alpha, n_boot=n_boot, n_sim=n_sim, seed=seed, metric=m)

# %% [markdown]
# ## Scaling curves
# **What the chart shows:** every run's wall time (black points) against its CPU limit on log-log axes, the fitted
# Amdahl, USL and quota models (lines; the legend lists them best AIC first, the best drawn solid; models that fit the
# same curve share one line and one entry) and the best model's 95% bootstrap band (shaded). Where the best line misses
# the runs at some limits by more than 1.5x, a warning under the title says where. **How to read it:** a straight line of slope -1 is perfect scaling (twice the CPU, half
# the time); flattening means extra CPU buys little; points far above the curve are limits where the run did worse than
# any smooth model allows (candidate dead zones, tested below). Unlimited runs sit at the machine's core count when it
# is known. For a metric other than wall time the y axis is its cost (throughput: seconds per request, 1 / throughput).
# Parameter intervals are profile-likelihood intervals (simulated coverage 94-96% at 95%); a parameter that ends on its
# bound, or an interval that reaches one, is listed under the chart and in `results.json` (`warnings`).

# %%
fit_rows = []
for g in groups:
    display(scaling_chart(prepared.runs.filter(pl.col("workload") == g.group["workload"],
                                               pl.col("threads") == g.group["threads"],
                                               pl.col("contention") == g.group["contention"]),
                          list(g.fits), title=f"{m.label.capitalize()} vs CPU limit: {g.label}", metric=m))
    for f in g.fits:
        for name, value in f.parameters.items():
            ci = f.intervals[name]
            fit_rows.append({"group": g.label, "model": f.model, "parameter": name, "estimate": value,
                             "ci_low": ci.low, "ci_high": ci.high, "aic": f.aic,
                             "warnings": "; ".join(w for w in f.warnings if w.startswith(name))})
        if f.warnings:
            display(Markdown(f"*{g.label}, {f.model}: " + "; ".join(f.warnings) + ".*"))
    if g.fit_note:
        display(Markdown(f"*{g.label}: {g.fit_note}*"))
fits_table = pl.DataFrame(fit_rows) if fit_rows else pl.DataFrame()
tn.save_table(fits_table, "fits")
tn.show_table(fits_table, title="Scaling model parameters (95% bootstrap intervals)",
              empty="no group had enough limits to fit a model")

# %% [markdown]
# ## Dead zones
# **What the chart shows:** for every limit, how much slower (in %) it is than the best lower limit, with its
# simultaneous interval (single-step max-T over all tested limits); colour = verdict (orange: dead zone, the interval's
# lower end is above the practical threshold; blue: not a dead zone, its upper end is below it; grey: undecided). The
# dashed lines mark 0% and the practical threshold. **How to read it:** only orange points are claims; a grey point above
# the threshold is a suspicion that needs more replicates (the sentences say how many). Verdicts are read off the
# intervals, so the two never disagree.

# %% [markdown] tags=["method"]
# The run is the unit. Each limit has its own run-to-run noise: a log-linear trend over the limits when the runs
# support one, never below the pooled noise nor below the pooled noise of that limit and every larger one (noise does
# not shrink as the limit grows, so this pool guards against growth of another shape, such as a step at the knee).
# Every simulated draw refits that noise: each limit's noise varies as a chi-square with the degrees of freedom the
# trend has at that limit (fewer at the ends of the sweep), and the limits vary together. The bounds come from the
# largest simulated error of the estimates over the tested limits, so they always run from low to high around the
# estimate, and the verdicts and adjusted p-values are read off the same simulation. Outlying runs (more than 5
# robust scales from their limit's median, against the noise of neighbouring limits) are flagged, shown and left out.
# In simulated sweeps with no dead zone (3 runs per limit, noise growing 3% -> 25%) a dead zone is claimed in 3.7% of
# sweeps (2.0-5.2% with linear or step growth, an outlying run, heavy tails, 2 runs or experiments as blocks), and a
# real +30% dead zone at 5% noise is found in every simulated sweep (89% with an outlying run; 19.5% with noise growing
# 3% -> 25%, the price of guarding against the noisy limits; statistics battery, 400 sweeps per scenario). With no
# replicated limit the answer is "too few to decide" (no verdict from an assumed prior). When a
# group spans several experiments, experiment is a block effect and that analysis is primary: on the published ffmpeg
# data the two experiments differ by 16% at 4000m, which pooled analysis would count as noise; the sensitivity line
# under the chart gives the other analysis.
#
# **Zero run-to-run noise.** A deterministic metric (e.g. `cpu_seconds` of fixed work) gives identical replicates:
# the run-to-run noise is zero, so every slowdown is exact. Then no test is needed or possible: the verdicts compare
# the exact slowdown with the threshold, and no interval or p-value is shown (the reason says so).

# %%
dz_tables = []
for g in groups:
    primary = g.primary_dead_zones
    model = "block=experiment" if primary is g.dead_zones_block else "pooled"
    display(dead_zone_chart(primary, title=f"Worse than the best lower limit ({m.label}, {model}): {g.label}", metric=m))
    display(Markdown("\n".join(f"- {s}" for s in cl.dead_zone_sentences(primary, m))))
    dz_tables.append(dead_zone_view(primary.limits_table(), m).with_columns(pl.lit(model).alias("model")))
    if g.dead_zones_block is not None:
        effects = ", ".join(f"{k} {100 * (2.718281828459045 ** v - 1):+.1f}%"
                            for k, v in g.dead_zones_block.block_effects.items())
        other = g.dead_zones if primary is g.dead_zones_block else g.dead_zones_block
        zones = "; ".join(", ".join(z.limits_labels) for z in other.zones) or "none decided"
        display(Markdown(f"Experiment offsets: {effects}. **Sensitivity, "
                         f"{'pooled over experiments' if other is g.dead_zones else 'experiment as a block'}**: "
                         f"dead zones: {zones}."))
        dz_tables.append(dead_zone_view(other.limits_table(), m).with_columns(
            pl.lit("pooled" if other is g.dead_zones else "block=experiment").alias("model")))
dead_zone_table = pl.concat(dz_tables) if dz_tables else pl.DataFrame()
tn.save_table(dead_zone_table, "dead_zones")

# %% [markdown]
# ## Knee, cost and recommendation
# The knee is the smallest limit within the tolerance of the best value; core-seconds = limit x wall time (what the run
# reserves; wall time only). The recommendation steps past any dead-zone limit. `expected` is in the metric's unit.
# How sure the choice is: `probability_recommended` gives, for each limit, the share of simulated repeats of the sweep
# (each limit's mean redrawn with its measured noise) that would recommend it, and `range_95` the limits 95% of them
# recommend. A limit chosen in 60% of repeats is a good default, not a measured optimum. A recommendation compares
# limits: with one limit measured, or one run per limit (run-to-run noise unmeasured), `undecided` says why no limit
# is recommended and what would decide it, and no interval is given.

# %%
rec_rows = []
for g in groups:
    r, k = g.recommendation, g.knee
    ci = metric_ci(r.confidence_interval(), m) if r.confidence_interval() else None  # None: zero noise, exact
    rec_rows.append({"group": g.label, "limit": r.limit_label, "threads": r.threads, "metric": m.name,
                     "expected": metric_value(r.expected_seconds.value, m), "ci_low": ci.low if ci else None,
                     "ci_high": ci.high if ci else None,
                     "unit": m.unit, "core_seconds": r.core_seconds if m.name == "wall_seconds" else None,
                     "knee": k.limit_label, "best": k.best_limit_label, "reason": r.reason,
                     "probability_recommended": ", ".join(f"{lab} {p:.0%}" for lab, p in sorted(
                         (r.probability_knee or {}).items(), key=lambda kv: -kv[1])),
                     "range_95": " to ".join(dict.fromkeys(r.limit_range)) if r.limit_range else None,
                     "undecided": r.undecided or None})
recommendations = pl.DataFrame(rec_rows)
tn.save_table(recommendations, "recommendations")
tn.show_table(recommendations, title="Recommended CPU limit per group", labels={"expected_seconds": "expected (s)"})

# %% [markdown]
# ## Active time under a quota (the Go write-up)
# **What the chart shows:** the share of a request's wall time spent on CPU (pprof CPU time / response time) against
# the CPU limit as a share of one core (points), the least-squares line through the origin with its 95% band, and the
# dashed y = x line (the quota alone explains the waiting). **How to read it:** points on the dashed line mean the
# request is CPU-bound and the quota is the only reason it waits; the implied slowdown is 1 / (CPU time / wall time).

# %%
active = None
if active_time_path != "none":
    go = load_go_active_time(active_time_path or None)
    act_fit = fit_active_time(go["limit_share"], go["active_over_wall"])
    display(active_time_chart(go, act_fit, title="CPU time / wall time vs CPU limit (Go JSON endpoint)"))
    active = active_time_results(go, act_fit)
    tn.save_table(active.table, "active_time")
    tn.show_table(active.table, title="Slowdown implied by the active-time fit")

# %%
tn.answer(cpu_limit_answer(groups, prepared, runs_path=runs_path, alpha=alpha, threshold_pct=threshold_pct,
                           active=active))
tn.write_results(cpu_limit_results(prepared, groups, runs_path=runs_path, active_time=active))
