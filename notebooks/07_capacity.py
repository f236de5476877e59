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
# # Capacity: how many units (streams, requests/s) fit under a CPU threshold, before and after an optimisation?

# %% tags=["parameters"]
capacity_path: str = ""  # per-variant usage table (CSV, columns as data/published/mediamtx_optimization.csv); "": published (seed 004)
target_units: float = 100.0  # load at which CPU is projected (streams)
limit_cores: float = 1.0  # CPU limit the threshold refers to (cores; the report's % are of one core)
threshold: float = 0.7  # capacity is the load at which CPU reaches threshold x limit (the report's alarm: 70%)
fixed_overhead_max: float = 0.2  # assumed fixed (load-independent) share of the measured CPU: drawn in 0..this
noise_cv: float = 0.10  # assumed measurement noise of the single CPU measurement (coefficient of variation)
n_sim: int = 20000  # Monte-Carlo draws of the projection
seed: int = 0  # seed of the Monte-Carlo
output_dir: str = "../data/processed/07_capacity"  # where tables, results.json and headlines go

# %% tags=["setup"] jupyter={"source_hidden": true}
import numpy as np
import polars as pl
from IPython.display import Markdown, display

from throttlelab.analysis.capacity import compare_variants, project_capacity, projection_curve, unit_costs
from throttlelab.analysis.capacity import capacity_results
from throttlelab.ingest.published import load_mediamtx
from throttlelab.report import notebook as tn
from throttlelab.report.answers import capacity_answer
from throttlelab.report.charts import capacity_chart

out = tn.start(output_dir, name="07_capacity")

# %% [markdown]
# ## What this notebook does
#
# From the media-server report (seed 004: MediaMTX with 64 WebRTC streams, before = `asis`, after = `tobe`), this
# notebook derives the CPU and memory cost per stream, projects CPU at a target load and the capacity under a threshold
# (by default 70% of a 1-core limit), with the projection's uncertainty, and compares the two variants. With a single
# load level per variant the projection rests on a stated assumption (linear through the origin, with a fixed-overhead
# range and a measurement-noise level), printed next to every number.

# %% [markdown]
# ## Cost per stream

# %%
usage = load_mediamtx(capacity_path or None)
costs = unit_costs(usage, unit_col="streams")
cost_table = pl.DataFrame([{
    "variant": c.variant, "streams": c.units, "cpu_cores": c.cpu_cores, "cpu_pct_per_stream": 100 * c.cpu_cores_per_unit,
    "memory_mib": c.memory_bytes / 2**20 if c.memory_bytes else None,
    "memory_mib_per_stream": c.memory_bytes_per_unit / 2**20 if c.memory_bytes_per_unit else None,
} for c in costs])
tn.save_table(cost_table, "unit_costs")
tn.show_table(cost_table, title="Measured cost per stream", labels={"cpu_pct_per_stream": "CPU per stream (% of a core)",
                                                                   "memory_mib_per_stream": "memory per stream (MiB)"})

# %% [markdown]
# ## Projection
# **What the chart shows:** projected process CPU (cores) against the number of streams for each variant (lines), the
# measured points (diamonds), the projection's 95% range under the stated assumptions (shaded) and the threshold (red
# dashed line). **How to read it:** where a line crosses the red line is that variant's capacity; the shaded range is
# what an unknown fixed overhead and measurement noise could change, not a measured spread. Lines are straight because
# one load level per variant allows nothing else.

# %%
kw = dict(limit_cores=limit_cores, threshold=threshold, fixed_overhead_max=fixed_overhead_max, noise_cv=noise_cv,
          n_sim=n_sim, seed=seed)
projections = [project_capacity(c, units=target_units, **kw) for c in costs]
top = max(target_units, max(p.capacity_units.value for p in projections)) * 1.2
grid = np.linspace(0, top, 25)
curves = pl.concat([projection_curve(c, grid, **{**kw, "n_sim": min(n_sim, 4000)}) for c in costs])
measured = pl.DataFrame({"variant": [c.variant for c in costs], "units": [c.units for c in costs],
                         "cpu_cores": [c.cpu_cores for c in costs]})
display(capacity_chart(curves, measured, threshold_cores=threshold * limit_cores, unit="streams",
                       title="Projected CPU vs streams, before (asis) and after (tobe)"))
proj_table = pl.DataFrame([{
    "variant": p.variant, "streams": p.units, "cpu_cores": p.cpu_cores.value, "cpu_ci_low": p.cpu_cores.low,
    "cpu_ci_high": p.cpu_cores.high, "cpu_pct_of_limit": p.cpu_pct_of_limit, "capacity_streams": p.capacity_units.value,
    "capacity_ci_low": p.capacity_units.low, "capacity_ci_high": p.capacity_units.high,
} for p in projections])
tn.save_table(proj_table, "projections")
tn.show_table(proj_table, title="Projected CPU and capacity (95% range under the assumption below)",
              labels={"cpu_ci_low": "CPU low (cores)", "cpu_ci_high": "CPU high (cores)",
                      "cpu_pct_of_limit": "CPU (% of limit)", "capacity_ci_low": "capacity low",
                      "capacity_ci_high": "capacity high"},
              note=f"Assumption: {projections[0].assumption}.")

# %% [markdown]
# ## Before / after

# %%
comparison = (compare_variants(projections[0], projections[-1], costs[0], costs[-1], noise_cv=noise_cv)
              if len(costs) > 1 else None)
if comparison:
    tn.show_table({"before": comparison.before, "after": comparison.after,
                   "CPU per stream change (%)": comparison.cpu_change_pct,
                   "memory per stream change (%)": comparison.memory_change_pct,
                   "capacity change (%)": comparison.capacity_change_pct,
                   "capacity ratio (after / before)": comparison.capacity_ratio}, title="After against before")
else:
    display(Markdown("*Only one variant: nothing to compare.*"))
tn.answer(capacity_answer(costs, projections, comparison, unit="stream"))
tn.write_results(capacity_results(costs, projections, comparison, capacity_path=capacity_path, unit="streams"))
