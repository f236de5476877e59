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
# # Ingest logs: what do the monitor logs say about throttling, and what could not be read?

# %% tags=["parameters"]
input_paths: list = ["../data/published/samples/local_cgroup_v1_quota_steps.log"]  # files or cgroup dirs to ingest (format detected from content)
input_format: str = "auto"  # auto, monitor, k6-json, k6-csv, k6-summary, prometheus, time or cgroup-dir
timezone: str = "UTC"  # time zone of monitor timestamps written without an offset (the shell script writes local time)
request_cores: float = 0.0  # CPU request to draw on the usage panel (cores); 0 draws none
max_points: int = 2000  # at most this many samples per log in the charts (intervals between kept samples stay exact)
output_dir: str = "../data/processed/02_ingest_logs"  # where tables, results.json and headlines go

# %% tags=["setup"] jupyter={"source_hidden": true}
import polars as pl
from IPython.display import Markdown, display

from throttlelab.analysis.runs import ingest_summary, merge_by_table
from throttlelab.ingest import detect_format, read_any
from throttlelab.ingest.intervals import intervals, thin_samples
from throttlelab.report import notebook as tn
from throttlelab.report.charts import monitor_panels, skip_chart
from throttlelab.report.answers import monitor_answer
out = tn.start(output_dir, name="02_ingest_logs")

# %% [markdown]
# ## What this notebook does
#
# This notebook reads monitor logs (the `monitor_cpu.sh` format of the ffmpeg write-up, also written by our
# experiment runners), raw cgroup directories, Prometheus `query_range` exports, k6 results and `time` output into the
# canonical tables (see `throttlelab.tables`). It then shows the monitor panels of the write-up's Grafana dashboard on
# one time axis — throttled ratio, CPU usage against the limit (and the request), throttled time, memory — and reports,
# per reason, every input line it could not use.
#
# By default it reads the bundled sample: a real cgroup v1 run on this machine (two busy loops, quota stepped
# 0.25 → 0.5 → 1.0 core; see `data/published/samples/README.md`).

# %% [markdown]
# ## Reading the inputs
# Each input is read leniently: good blocks are kept, and every line that could not be used is counted under its
# reason. The table lists, per input, its format, what it yielded and how much was skipped.

# %%
results = []
for path in input_paths:
    fmt = detect_format(path) if input_format == "auto" else input_format
    results.append((path, fmt, read_any(path, fmt, tz=timezone)))
inputs = pl.DataFrame(
    [{"input": str(p), "format": f, "table": r.table, "rows": r.frame.height, "unit": r.unit,
      "total": r.lines_total, "used": r.lines_used, "skipped": r.skipped.total} for p, f, r in results],
    schema={"input": pl.String, "format": pl.String, "table": pl.String, "rows": pl.Int64, "unit": pl.String,
            "total": pl.Int64, "used": pl.Int64, "skipped": pl.Int64},
)
tn.save_table(inputs, "inputs")
tn.show_table(inputs, title="Inputs read", labels={"total": "lines/values", "used": "used", "rows": "rows out"},
              empty="no input given")

# %% [markdown]
# ## The skip report
# Every skipped line, counted by reason, with the first example (`file:line: excerpt`). An empty report means every
# line was used.

# %%
by_table = merge_by_table(results)
skips = pl.concat([r.skipped.to_frame().with_columns(table=pl.lit(t)) for t, r in by_table.items()]) if by_table else pl.DataFrame()
tn.save_table(skips, "skipped")
display(Markdown("\n".join(f"- {t}: {r.skipped.total:,d} of {r.lines_total:,d} {r.unit} skipped"
                             for t, r in by_table.items())))
tn.show_table(skips, title="Skipped lines by reason", empty="every line was used")

# %% [markdown]
# The chart shows how many lines were skipped for each reason; hover a bar for its first example.

# %%
if skips.height:
    display(skip_chart(skips))
else:
    tn.not_run("no chart of skipped lines: every line was used")

# %% [markdown]
# ## Samples and intervals
# The samples table holds cumulative counters per monitor block; the intervals table the rates between consecutive
# samples of the same log and counter segment (a counter going backwards — a pod restart — starts a new segment).

# %%
samples = by_table["samples"].samples if "samples" in by_table else pl.DataFrame()
iv = by_table["samples"].intervals() if "samples" in by_table else pl.DataFrame()
tn.save_table(samples, "samples")
tn.save_table(iv, "intervals")
summary = ingest_summary(results, intervals=iv)
by_limit = summary.by_limit
tn.save_table(by_limit, "by_limit")
tn.show_table(by_limit, title="Throttling by CPU limit", empty="no samples with CPU counters")

# %% [markdown]
# ## Monitor panels
# Four panels on one time axis (time since the first sample; a dated UTC clock for logs over three days), like the
# write-up's Grafana dashboard. **Top:** the share of CFS periods in which
# the cgroup was throttled (Δnr_throttled / Δnr_periods) — 100 % means it hit its quota in every period.
# **Second:** CPU used (Δusage / Δt, line; `kubectl top` as dots) against the limit (dashed yellow) and the request
# (grey, if given) — usage pinned at the limit means CPU-bound under the quota. **Third:** throttled time per second,
# summed over CPUs, so it can exceed 1. **Bottom:** memory from `kubectl top` (absent when the log has none).

# %%
shown = intervals(thin_samples(samples, max_points)) if samples.height else iv
if shown.height:
    display(monitor_panels(shown, request_cores=request_cores or None,
                           title="Monitor log: throttling, usage, limit, memory"))
else:
    display(Markdown("*No panels: the inputs hold no monitor samples.*"))

# %%
tn.answer(monitor_answer(summary, inputs=len(input_paths)))
tn.write_results(summary)
