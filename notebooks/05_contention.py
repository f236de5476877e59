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
# # Response time under a noisy neighbour
#
# **Question:** how much slower does a CPU-bound service answer when a neighbour takes 0-70% of the machine's CPU,
# at several request rates, and from which neighbour share does the response time take off?

# %% tags=["parameters"]
output_dir: str = "../data/processed/05_contention"  # where tables, charts and results.json go
contention_csv: str = ""  # published table 1 CSV; empty: the bundled data/published/contention_response_time.csv
requests_path: str = ""  # measured requests: run-store folder, requests .parquet/.csv, or k6 output; empty: none
live_sweep: dict = {}  # a latency sweep to run now, keys of LatencySweep.from_mapping; empty: none
live_backend: str = "local"  # local: cgroups; none: no cgroup, duty-cycled neighbour
data_root: str = "../data/raw"  # where a live sweep writes its run store: data_root/experiment
n_boot: int = 200  # bootstrap resamples for intervals
seed: int = 0  # random seed of the bootstrap

# %% tags=["setup"] jupyter={"source_hidden": true}
import polars as pl
from IPython.display import Markdown, display

from throttlelab.analysis import latency
from throttlelab.analysis.latency import contention_results
from throttlelab.experiment.latency import load_measured
from throttlelab.ingest.published import load_contention
from throttlelab.report import notebook as tn
from throttlelab.report import charts
from throttlelab.report.answers import contention_answer
out = tn.start(output_dir, name="05_contention")

# %% [markdown]
# ## What this notebook does
#
# Default: the contention paper's table 1 (php-apache next to a stress pod; mean response time at 150/300/450
# requests per 30 s), rebuilt from the bundled CSV and checked cell by cell against the printed percentages, then a
# queueing-style fit with its knee. With `requests_path` (measured requests: a latency run store, a requests table
# or k6 output) or `live_sweep` (run a short sweep here: service in a cgroup, noisy neighbour, open-loop load), the
# same analysis runs on per-request data, with bootstrap intervals and tests. When the measured data hold several
# neighbour worker counts at one share (the paper's second experiment: 65% of the node, 2-10 CPU jobs), a last
# section asks whether more busy workers at the same share slow the service down.

# %% [markdown]
# ## The paper's table 1, rebuilt
#
# One row per request rate, one column per stress share; each cell reads `ms (printed % | % from the ms)`.
# A printed % is *consistent* when it lies within the range that the whole-millisecond rounding of the two times
# allows.

# %%
published = load_contention(contention_csv or None)
table1 = latency.paper_table1(published)
tn.save_table(table1, "paper_table1")
tn.save_table(latency.paper_table1_wide(table1), "paper_table1_wide")
inc = latency.published_increase(table1)
tn.headline(f"Paper table 1: {int(table1['consistent'].sum())}/{table1.height} printed % increases reproduce from the "
            f"published ms (max +{int(table1['percent_printed'].max())}% at 450 req/30 s, 70% stress; from the ms "
            f"{inc.value:+.0f}%, rounding range {inc.low:+.0f}% to {inc.high:+.0f}%; one mean per cell, so run-to-run "
            f"noise and a test are not possible)")
tn.show_table(latency.paper_table1_wide(table1), title="Paper table 1: mean response time (ms) and % increase")

# %% [markdown]
# ## Queueing-style fits of the published points
#
# Two models of mean response time R against the neighbour share x: `hyperbolic` R = a + b/(c − x) (a floor and a
# term that diverges at x = c) and `mm1` R = S/(1 − λS/(C(1 − x))) with the known request rate λ. The *knee* is where
# the fitted curve's slope equals its average slope over 0-70% (Kneedle); *doubling* is where it reaches twice its
# no-contention value. Intervals: residual bootstrap.

# %%
fits_table, fits = latency.fit_summary(published, n_boot=n_boot, seed=seed)
tn.save_table(fits_table, "published_fits")
hyper_all = fits_table.filter((pl.col("model") == "hyperbolic") & (pl.col("group") == "all")).row(0, named=True)
mm1_all = fits_table.filter((pl.col("model") == "mm1") & (pl.col("group") == "all")).row(0, named=True)
tn.headline(f"Published data: response time takes off at a neighbour share of {hyper_all['knee']:.0%} "
            f"(95% CI {hyper_all['knee_low']:.0%}-{hyper_all['knee_high']:.0%}, hyperbolic fit, R² {hyper_all['r2']:.2f})")
tn.show_table(fits_table.select("model", "group", "knee", "knee_low", "knee_high", "doubling", "doubling_low",
                                 "doubling_high", "pole", "r2", "aicc", "note"),
              title="Fits of the published points (knee and doubling as neighbour share, 95% bootstrap intervals)",
              labels={"r2": "R²"}, quantities=dict.fromkeys(("knee", "knee_low", "knee_high", "doubling",
                                                               "doubling_low", "doubling_high", "pole"), "share"))

# %% [markdown]
# The chart shows the published mean response times (points) per request rate (colour), the fitted hyperbolic curves
# (dashed) and each rate's knee (vertical line, with its bootstrap interval as a band). Read it left to right: flat up
# to about 40%, then steep; the three rates barely differ, so the M/M/1 model, in which the rate drives the queue,
# fits them worse together (compare R² and AICc of the `all` rows above; on one rate's 7 points AICc leaves little
# room for the hyperbolic's third parameter): the slowdown is mostly each request getting less CPU, not queueing.

# %%
points = table1.with_columns((pl.col("requests_per_30s") / 30).alias("load"))
points = points.with_columns(pl.format("{}", pl.col("load")).alias("load"))
hyper = {k: v for k, v in fits.items() if k[0] == "hyperbolic" and k[1] != "all"}
curves = charts.fitted_curves(hyper, [(g, float(g)) for g in ("5.0", "10.0", "15.0")])
knees = fits_table.filter((pl.col("model") == "hyperbolic") & (pl.col("group") != "all")).select(
    pl.col("group").alias("color"), "knee", "knee_low", "knee_high")
display(charts.response_vs_contention(points, y="mean_ms", color="load", curves=curves, knees=knees,
                                      color_title="requests/s",
                                      title="Published: mean response time vs stress share (colour: requests/s)"))

# %% [markdown]
# ## Measured requests (when given)
#
# Runs only when `requests_path` or `live_sweep` is set. Per contention share and request rate: mean, p50, p95, p99
# and max response time of the requests pooled over the share's runs, failed requests counted by kind, inflation over
# share 0, and the same hyperbolic fit with a request-level bootstrap. The intervals of mean, p50, p95 and p99 treat
# the run as the unit: with two or more runs, the pooled value times the spread of the per-run values (t interval on
# their logs, runs - 1 df), so they include run-to-run variation; with one run, the interval covers that run's
# requests only (order statistics; mean: request bootstrap; "not enough samples" where n cannot support one) and
# run-to-run noise is unmeasured (`run_to_run_measured` false; the line under the table says which rows).
# **The run is the unit**: requests of one run share its conditions, so the request-level inflation intervals and
# the Mann-Whitney test only describe; the verdict on each share (`run_*` columns) comes from each run's mean compared
# across runs (Welch t on log run means, Bonferroni over the shares so intervals and verdicts agree), and with one run
# per share it is "too few to decide" with the runs needed to detect 10%.

# %%
measured = live = requests = None
if live_sweep:
    from throttlelab.experiment.latency import run_live_sweep

    requests_path, live = run_live_sweep(live_sweep, data_root, backend=live_backend)
if requests_path:
    requests, stage_timings = load_measured(requests_path)
    measured = latency.analyse_measured(requests, n_boot=n_boot, seed=seed)
    for name in ("summary", "inflation_mean", "inflation_p95", "fits"):
        tn.save_table(measured[name], f"measured_{name}")
    if (line := latency.inflation_headline(measured["inflation_mean"])):
        tn.headline(line)
    tn.show_table(measured["summary"], title="Measured response time per neighbour share and load")
    if (why := latency.interval_note(measured["summary"])):
        display(Markdown(why))
else:
    tn.not_run("no measured requests (set `requests_path` or `live_sweep`)")

# %% [markdown]
# Measured mean response time per neighbour share (points, with the 95% intervals of the table above), per load
# (colour), with the
# fitted curves (dashed) and knees (vertical lines and bands) where a fit was possible. Nothing is drawn without
# measured data.

# %%
if measured is not None and measured["summary"].height:
    s = measured["summary"].filter((pl.col("contention") == 0)
                                   | (pl.col("neighbour_workers") == measured["neighbour_workers"])
                                   | pl.col("neighbour_workers").is_null())
    s = s.with_columns((pl.col(c) * 1000).alias(c.replace("_seconds", "_ms").replace("_low", "_low_ms")
                                                .replace("_high", "_high_ms")) for c in ("mean_seconds", "mean_low", "mean_high"))
    s = s.with_columns(pl.format("{}", pl.col("load")).alias("load"))
    mf = measured["fits"]
    groups = [(f"{v:g}", v) for v in measured["summary"]["load"].unique().sort().to_list()]
    curves_m = charts.fitted_curves(measured["fit_objects"], groups).with_columns(
        pl.col("color").map_elements(lambda g: f"{float(g):.1f}", return_dtype=pl.String))
    knees_m = (mf.filter(pl.col("knee").is_not_null()).select(pl.format("{}", pl.col("load")).alias("color"), "knee",
                                                              "knee_low", "knee_high")
               if "knee" in mf.columns else None)
    chart = charts.response_vs_contention(s, y="mean_ms", low="mean_low_ms", high="mean_high_ms", color="load",
                                          curves=curves_m, knees=knees_m,
                                          title="Measured: mean response time vs neighbour share (colour: load)")
    display(chart)
else:
    tn.not_run("no measured requests (set `requests_path` or `live_sweep`)")

# %% [markdown]
# Distribution of measured response times per neighbour share (all loads together): the further right a line, the
# slower; a long flat tail on the right is the p99/max. Nothing is drawn without measured data.

# %%
if measured is not None:
    display(charts.latency_ecdf(requests, color="contention",
                                title="Measured response-time distribution per neighbour share"))
else:
    tn.not_run("no measured requests (set `requests_path` or `live_sweep`)")

# %% [markdown]
# ## Busy workers of the neighbour at a fixed share (the paper's second experiment)
#
# The paper's section 3.3 keeps the stress pod at 65% of the node and varies its CPU jobs (2, 4, 6, 8, 10) while the
# target gets 400 requests in 30 s. It reports this **only as a figure** (figure 2: mean, p90 and p95 per job count;
# no table), so there is nothing to reproduce numerically; its text says the mean barely moves while p90 and p95
# rise, by up to 19.4%, which it attributes to context-switch overhead. This section runs only when the measured
# requests hold two or more worker counts at one neighbour share: per worker count, mean/p50/p90/p95/p99 with 95%
# intervals (runs as the unit as above; one run: run-to-run noise unmeasured); the change of each against the fewest
# workers (95% bootstrap interval); a Mann-Whitney test
# per worker count (Holm-corrected); and a trend test across worker counts (Jonckheere-Terpstra, Spearman, slope
# per added worker). Requests of one run are not independent (shared queue, same few seconds of the neighbour), so
# request-level p-values only describe. **Verdicts come from the runs**: each run's median compared across runs
# (Welch t on logs, Bonferroni over worker counts); one run per worker count is "too few to decide". With replicate runs, the change intervals resample runs and then
# requests (two-stage bootstrap), and the trend verdict rests on a run-level test (Spearman of each run's p95).

# %%
workers = latency.analyse_neighbour_workers(requests, n_boot=n_boot, seed=seed) if measured is not None else None
if workers is not None and "summary" in workers:
    for name in ("summary", "runs", "change", "tests", "trend"):
        tn.save_table(workers[name], f"measured_workers_{name}")
    tn.save_table(latency.change_wide(workers["change"]), "measured_workers_change_wide")
    line = latency.headline(workers)
    if line:
        tn.headline(line)
    display_workers = latency.change_wide(workers["change"])
    tn.show_table(display_workers, title="Change against the fewest busy workers")
else:
    display_workers = None
why_no_workers = (workers or {}).get("note") or "no measured requests with two or more neighbour worker counts"
if display_workers is None:
    tn.not_run(why_no_workers)

# %% [markdown]
# One row per run: the spread between runs of the same worker count is the machine's own noise, the yardstick for
# any difference between worker counts.

# %%
if display_workers is not None:
    tn.show_table(workers["runs"], title="One row per run")
else:
    tn.not_run(why_no_workers)

# %%
trend = workers["trend"].select("config", "load", "workers", "n", "jt_tau", "jt_tau_low", "jt_tau_high", "jt_p", "spearman_rho",
                        "spearman_p", "slope_p95_ms_per_worker", "slope_p95_low", "slope_p95_high", "slope_interval",
                        "runs_per_workers_min",
                        "run_spearman_rho", "run_spearman_p", "verdict") \
    if display_workers is not None and workers["trend"].height else None
if trend is not None:
    tn.show_table(trend, title="Trend across worker counts")

# %% [markdown]
# The chart shows mean, p90 and p95 response time (lines and points) against the number of busy neighbour workers,
# all at the same neighbour share, with 95% interval bands (the summary's intervals: runs as the unit with two or
# more runs per worker count; with one run the bands leave run-to-run noise out, as the line under the chart says).
# Read it as the paper's figure 2: a flat mean with rising
# p90/p95 lines means more workers hurt the tail, not the typical request; overlapping bands mean this machine's data
# cannot tell the worker counts apart. Nothing is drawn without two or more worker counts.

# %%
if display_workers is not None:
    display(charts.response_vs_workers(workers["summary"], title=f"Measured: response time vs the neighbour's busy "
                                                                 f"workers at {workers['share']:.0%} of the machine"))
    if (why := latency.interval_note(workers["summary"])):
        display(Markdown(why))
else:
    tn.not_run(why_no_workers)

# %% [markdown]
# Distribution of the measured response times per neighbour worker count (same share): lines that separate only in
# the upper right (above 0.9) are a tail effect. Nothing is drawn without two or more worker counts.

# %%
if display_workers is not None:
    display(charts.latency_ecdf(requests.filter((pl.col("contention") - workers["share"]).abs() < 1e-9),
                                color="neighbour_workers",
                                title="Measured response-time distribution per neighbour worker count"))
else:
    tn.not_run(why_no_workers)

# %%
tn.answer(contention_answer(table1, hyper_all, n_boot=n_boot, requests=requests if measured is not None else None))
tn.write_results(contention_results(table1, fits, requests=requests, measured=measured, workers=workers,
                                    live_sweep=live))
