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
# # Concurrency limits: does a semaphore on the heavy stage help the light ones?
#
# **Question:** in a pipeline service where one CPU-heavy stage (embedding) and four light stages share a worker pool,
# how does limiting the heavy stage's concurrency (a semaphore) change each stage's time, at 10-30 virtual users?

# %% tags=["parameters"]
output_dir: str = "../data/processed/06_concurrency_limits"  # where tables, charts and results.json go
semaphore_csv: str = ""  # published k6 summaries; empty: the bundled data/published/embedding_semaphore_k6.csv
requests_path: str = ""  # measured stage timings: run-store folder, requests/stage_timings tables, or k6 output
live_sweep: dict = {}  # a latency sweep to run now, keys of LatencySweep.from_mapping; empty: none
live_backend: str = "local"  # local: cgroups; none: no cgroup
data_root: str = "../data/raw"  # where a live sweep writes its run store: data_root/experiment
base_config: str = ""  # measured: configuration to compare from; empty: the one without a semaphore
other_config: str = ""  # measured: configuration to compare to; empty: one with a semaphore
alpha: float = 0.05  # family-wise error rate of the Holm-corrected tests

# %% tags=["setup"] jupyter={"source_hidden": true}
import polars as pl
from IPython.display import display

from throttlelab.analysis import latency as cc
from throttlelab.analysis.latency import concurrency_results
from throttlelab.experiment.latency import load_measured
from throttlelab.ingest.published import load_semaphore
from throttlelab.report import notebook as tn
from throttlelab.report import charts
from throttlelab.report.answers import concurrency_answer
out = tn.start(output_dir, name="06_concurrency_limits")

# %% [markdown]
# ## What this notebook does
#
# Default: the semaphore wiki's k6 summaries (avg/p95/max per stage, `max_workers` 8 and 12, semaphore none vs 4),
# with its %-change table (max_workers=8) rebuilt from its own per-run tables and checked cell by cell. With
# `requests_path` (measured stage timings: a latency run store or k6 output) or `live_sweep` (run a short closed-loop
# sweep of our pipeline service here), the same table on per-request data, plus Mann-Whitney tests with Holm's
# correction.

# %% [markdown]
# ## The wiki's %-change table (max_workers=8), rebuilt
#
# %-change = (with semaphore − without) / without × 100; negative = faster, positive = slower. Each printed cell
# is compared with what the wiki's own per-run tables give: *reproduced* (inside the range their rounding allows),
# *close* (within 1 point: the wiki used unrounded k6 numbers) or *inconsistent* (e.g. copied from another column).

# %%
published = load_semaphore(semaphore_csv or None)
repro = cc.wiki_reproduction(published, max_workers=8)
tn.save_table(repro, "wiki_percent_change_w8")
tn.save_table(cc.wiki_layout(repro), "wiki_percent_change_w8_layout")
results = concurrency_results(published)
verdicts = results.wiki_table.verdicts
inconsistent = results.wiki_table.inconsistent
total30 = repro.filter((pl.col("load") == 30) & (pl.col("stage") == "total") & (pl.col("stat") == "avg")).row(0, named=True)
tn.headline(f"Wiki table (max_workers=8): {verdicts.get('reproduced', 0)}/{repro.height} printed %-changes reproduce "
            f"exactly, {verdicts.get('close', 0)} within 1 point, {verdicts.get('inconsistent', 0)} contradict the "
            f"wiki's own per-run tables")
h_avg, h_p95 = results.headline_avg_total_30vus, results.headline_p95_total_30vus
tn.headline(f"Published: the semaphore cuts the mean total time at 30 VUs by {-total30['percent_change']:.0f}% "
            f"({total30['base_seconds']:.2f} s -> {total30['other_seconds']:.2f} s; rounding range "
            f"{h_avg.low:+.1f}% to {h_avg.high:+.1f}%) and its p95 by {-h_p95.value:.0f}% (rounding range "
            f"{h_p95.low:+.1f}% to {h_p95.high:+.1f}%); one k6 run per configuration: no test, run-to-run noise unmeasured")
tn.show_table(cc.wiki_layout(repro), title="Wiki table, rebuilt: %-change with the semaphore (avg/p95/max)",
              labels={"load": "virtual users"})

# %% [markdown]
# Cells where the printed value disagrees with the wiki's own per-run tables by more than a point:

# %%
tn.show_table(inconsistent, title="Printed cells that contradict the wiki's per-run tables",
              empty="every printed cell agrees with the per-run tables")

# %% [markdown]
# The heatmap shows the %-change recomputed from the published per-run tables, per stage (rows) and virtual users
# (columns), one panel per statistic: blue is faster with the semaphore, orange slower. The light stages turn deep blue
# from 15 VUs on; embedding's p95 and max stay near zero (the semaphore queues some embeddings).

# %%
display(charts.percent_change_heatmap(repro, title="Published, max_workers=8: change with a semaphore of 4 (blue = faster)"))

# %% [markdown]
# The same comparison at max_workers=12 (the wiki printed no %-table for it): does the effect depend on the pool size?

# %%
w12 = cc.percent_change_table(published, "workers=12,semaphore=none", "workers=12,semaphore=4")
tn.save_table(w12, "percent_change_w12")
display(charts.percent_change_heatmap(w12, title="Published, max_workers=12: change with a semaphore of 4 (blue = faster)"))

# %% [markdown]
# Mean time per stage for each configuration (colour) at each number of virtual users (panels): without a semaphore
# the light stages grow with the load; with it they stay flat.

# %%
display(charts.stage_bars(published, title="Published: mean time per stage (k6 avg)"))

# %% [markdown]
# ## Measured stage timings (when given)
#
# Runs only when `requests_path` or `live_sweep` is set. Per (virtual users, stage): avg/p95/max and their %-change,
# a two-sided Mann-Whitney U test of the per-request stage times, the rank-biserial effect size (negative: faster with
# the second configuration) and Holm-corrected p-values: these describe, because requests of one closed-loop run share
# its queue. **The verdict is run-level** (`run_*` columns): each run's mean stage time, Welch t on log run means,
# Bonferroni over the table's cells (named so because its simultaneous intervals and the verdicts then agree). One
# run per configuration is "too few to decide (runs)" with the runs needed to detect 10%; fewer than 5 samples on a
# side is "not enough data to decide".

# %%
measured = requests = live = None
if live_sweep:
    from throttlelab.experiment.latency import run_live_sweep

    requests_path, live = run_live_sweep(live_sweep, data_root, backend=live_backend)
if requests_path:
    requests, stage_timings = load_measured(requests_path)
    measured = cc.analyse_measured_stages(stage_timings, base=base_config or None, other=other_config or None,
                                          alpha=alpha)
results = concurrency_results(published, requests=requests, measured=measured, live_sweep=live)
if measured is not None and "note" in measured:
    measured = None
elif measured is not None:
    for name in ("summary", "percent_change", "tests"):
        tn.save_table(measured[name], f"measured_{name}")
    for line in cc.measured_headlines(measured, alpha=alpha):
        tn.headline(line)
why_no_measured = ((results.measured.note if results.measured else "")
                   or "no measured stage timings (set `requests_path` or `live_sweep`)")
if measured:
    tn.show_table(measured["tests"], title="Tests per stage (Mann-Whitney U, Holm-corrected)")
else:
    tn.not_run(why_no_measured)

# %% [markdown]
# Measured %-change per stage and virtual users (blue = faster with the second configuration). Nothing is drawn
# without measured data.

# %%
if measured:
    display(charts.percent_change_heatmap(measured["percent_change"],
                                          title=f"Measured: {measured['other']} vs {measured['base']}"))
else:
    tn.not_run(why_no_measured)

# %% [markdown]
# Measured mean time per stage per configuration (colour) and virtual users (panels).

# %%
if measured:
    display(charts.stage_bars(measured["summary"], title="Measured: mean time per stage"))
else:
    tn.not_run(why_no_measured)

# %%
tn.answer(concurrency_answer(repro, reproduced=verdicts.get("reproduced", 0),
                             measured_requests=results.measured.requests if measured else None))
tn.write_results(results)
