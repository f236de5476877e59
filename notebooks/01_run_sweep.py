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
# # Run a CPU-limit x thread-count sweep on this machine
#
# **Question:** what happens to a workload's wall time, CPU use and CFS throttling when this machine's Linux
# scheduler caps it at a CPU limit, the way Kubernetes does with `limits.cpu`, and at each thread count?

# %% tags=["parameters"]
output_dir: str = "../data/processed/01_run_sweep"  # where tables, charts and results.json go
spec: str = "../studies/sweeps/tiny_burner.yaml"  # sweep spec (YAML); "": only the inline fields below
inline: dict = {}  # spec keys that override the file's (e.g. {"limits": [0.5, 1], "replicates": 3})
data_root: str = "../data/raw"  # run store root: runs go to data_root/<experiment name>
run: bool = True  # run the missing runs; False: only show what is stored
retry_failed: bool = False  # also redo runs that failed or timed out
example_run: str = ""  # run whose monitor intervals are shown; "": the most throttled run

# %% tags=["setup"] jupyter={"source_hidden": true}
import polars as pl
from IPython.display import Markdown, display

from throttlelab.core import format_cores
from throttlelab.experiment.registry import get_backend
from throttlelab.experiment.sweeps import RunStore, pending_runs, pick_example_run, run_intervals, run_sweep, spec_from
from throttlelab.experiment.sweeps import sweep_results, sweep_summary
from throttlelab.experiment.sweeps.adaptive import AdaptiveDesign, decisions_table, run_order_table
from throttlelab.report import notebook as tn
from throttlelab.report.charts import limit_wall_chart, run_intervals_chart
from throttlelab.report.answers import sweep_answer

out = tn.start(output_dir, name="01_run_sweep")

# %% [markdown]
# ## What this notebook does
#
# This notebook runs (or resumes) a sweep described by a spec (`studies/local_sweep.yaml` shows every key): each run
# gets its own cgroup with the run's CFS quota, the workload starts inside it, and a sampler writes the cgroup's
# `cpu.stat` into a monitor log in the same format as the write-up's `monitor_cpu.sh`. Finished runs are stored in
# `data/raw/<experiment>/` and never rerun: executing the notebook again resumes where it stopped. Where this machine
# has no writable CPU cgroup the notebook says why and shows what is already stored.
#
# With `design: adaptive` in the spec the sweep does not run the whole grid: after a connected half of the cells, each
# next run goes where a decision (the knee, a dead zone, the best thread count per limit) is still uncertain, until all
# decisions are right together with the spec's confidence or the run budget is spent. The notebook then shows the decisions with their confidence first, and
# the runs in the order they were chosen, each with the reason. `backend: simulated` runs the same spec in
# milliseconds against a known ground truth.

# %% [markdown]
# ## The sweep
# The spec after the inline overrides, and how many of its runs are already stored.

# %%
sweep = spec_from(spec or inline, **{**(inline if spec else {}), "data_root": data_root})
store = RunStore(sweep.experiment_dir)
plan = sweep.plan()
todo = pending_runs(sweep, store, retry_failed=retry_failed)
backend = get_backend(sweep.backend)
available, reason = backend.available()
adaptive = sweep.design == "adaptive"
design = AdaptiveDesign(sweep, store.read_runs()) if adaptive else None
size = (f"adaptive design: **at most {design.budget} runs** (the full grid would be {design.grid_runs}), "
        f"{design.runs_used} already stored" if adaptive else f"**{len(plan)} runs, {len(plan) - len(todo)} already stored**")
display(Markdown(
    f"Experiment **{sweep.name}**: {sweep.workload.kind} workload, limits "
    f"{', '.join(format_cores(v) for v in sweep.limits)} cores, threads "
    f"{', '.join(sweep.threads)}, {sweep.replicates} replicate(s), {sweep.warmup} warm-up run(s): "
    f"{size} in `{store.directory}`. "
    f"Backend `{sweep.backend}`: " + ("available." if available else f"**not available here**: {reason}")))

# %% [markdown]
# ## Running
# The progress bar counts stored runs; its ETA comes from the runs done in this session. Interrupting the kernel
# stops the current run cleanly (its cgroup is removed, no row written): execute again to resume.

# %%
skipped_reason = None
if run and todo and available:
    runs = run_sweep(sweep, backend, progress=True, retry_failed=retry_failed)
else:
    skipped_reason = None if not todo else (reason if not available else "run=False")
    runs = store.read_runs()
if adaptive:  # its run ids go beyond the grid's replicates: keep this configuration's rows
    runs = runs.filter(pl.col("run_id").str.ends_with(f"-{sweep.config_hash()}"))
else:
    runs = runs.filter(pl.col("run_id").is_in([p.run_id for p in plan]))
tn.save_table(runs, "runs")
if skipped_reason:
    display(Markdown(f"**{len(todo)} runs were not run**: {skipped_reason}."))
tn.show_table(runs, title="Runs", empty="no run stored for this sweep yet")

# %% [markdown]
# ## Adaptive design: the decisions, then the runs in the order chosen
# Only for `design: adaptive`. Each decision with its answer and **confidence**: the posterior probability that the
# answer is right within the spec's resolution (run-level statistics: each run is one observation; lone runs may be
# outliers). `target` is the spec's confidence, which each decision must reach; the sweep stops early only when, in
# addition, all answers are right together with that confidence (the joint posterior probability, shown above the
# table). `open` decisions did not get there within the budget, and `runs_to_decide` is a rough count of runs per
# deciding cell that would settle them. Below it, every run in the order it ran, with the reason it was chosen.

# %%
adaptive_status = None
if adaptive:
    adaptive_status = AdaptiveDesign(sweep, runs).status()
    decisions = decisions_table(adaptive_status)
    order = run_order_table(runs)
    tn.save_table(decisions, "decisions")
    tn.save_table(order, "run_order")
    open_ = [d.subject for d in adaptive_status.open]
    display(Markdown(
        f"**{adaptive_status.runs_used} runs** of a {adaptive_status.budget}-run budget (full grid: "
        f"{adaptive_status.grid_runs}); stopped because: {adaptive_status.stop_reason}. "
        + (f"All {len(adaptive_status.decisions)} decisions right together: **{adaptive_status.joint:.1%}**. "
           if adaptive_status.joint is not None else "")
        + (f"**Still open:** {', '.join(open_)}." if open_ else "Every decision is decided.")))
    tn.show_table(decisions.with_columns(pl.format("{}%", (pl.col(c) * 100).round(1)).alias(c)
                                         for c in ("confidence", "target")),
                  title="Decisions", empty="nothing to decide yet: a cell has no usable run")
    tn.show_table(order, title="Runs in the order chosen", empty="no run stored for this sweep yet")

# %% [markdown]
# ## Per point
# Medians over replicates of each (neighbour, limit, threads) point; `throttled_ratio` pools the CFS periods of its
# runs (throttled periods / periods), `median_effective_cores` is CPU time / wall time. Warm-ups are left out.

# %%
summary = sweep_summary(runs)
tn.save_table(summary, "summary")
tn.show_table(summary, title="Per point (medians over replicates)", empty="no finished run to summarise")

# %% [markdown]
# ## Wall time against the CPU limit
# Each dot is one run, lines join the medians of each thread count; the x axis is logarithmic and the rightmost
# position is "unlimited". Under CFS bandwidth control, a CPU-bound run whose threads want more than the limit takes
# about CPU seconds / limit; where the lines flatten the limit no longer binds. Hover a dot for its counters.

# %%
if runs.height:
    display(limit_wall_chart(runs, title=f"{sweep.name}: wall time by CPU limit and thread count"))
else:
    display(Markdown("*No chart: no run stored for this sweep yet.*"))

# %% [markdown]
# ## One run, interval by interval
# From the run's monitor log (read back with the ingest parser): the CPU the cgroup used in each sampling interval
# against its limit (dashed), and the share of 100 ms CFS periods in which it was throttled. A run pinned at its limit
# with most periods throttled is CPU-starved; short bursts over the limit are impossible: the quota is a hard cap.

# %%
shown = example_run or pick_example_run(runs)
has_log = bool(shown) and (store.monitor_dir / f"{shown}.log").exists()  # the simulated backend writes none
intervals = run_intervals(store, shown) if has_log else None
if intervals is not None:
    tn.save_table(intervals, "example_intervals")
    display(run_intervals_chart(intervals, title=shown))

# %%
tn.answer(sweep_answer(sweep, plan, runs, summary, adaptive_status=adaptive_status, skipped_reason=skipped_reason))
tn.write_results(sweep_results(sweep, store, plan, runs, summary, adaptive_status=adaptive_status,
                               skipped_reason=skipped_reason, example_run=shown))
