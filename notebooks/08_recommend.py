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
# # Right-sizing: which CPU request and limit should each workload's containers get, given how often they are throttled?

# %% tags=["parameters"]
prometheus_url: str = ""  # a live Prometheus, e.g. http://127.0.0.1:9090; "" reads openmetrics_path instead
openmetrics_path: str = ""  # a saved OpenMetrics export (.om or .om.gz); "" is the bundled sample namespace
use_prometheus: bool = True  # load an export into a temporary local Prometheus when installed (False: read directly)
namespace: str = ""  # "" for every namespace (the bundled sample is read as its namespace, shop)
selector: str = ""  # pod label selector as for kubectl -l (key-equals-value pairs, comma-separated)
since: str = ""  # window, e.g. 14d; "" is 14d for a live server, the whole export otherwise
end: str = ""  # end of the window (unix s or ISO time); "" is now, or the export's last sample
throttle_target: float = 0.05  # largest acceptable predicted throttled-period ratio
limit_policy: str = "target"  # target, none (requests only) or keep (keep current limits)
min_history: str = "24h"  # fewer pod-hours (summed over a workload's pods) are "too little data"
bearer_token_file: str = ""  # for a live server behind auth
insecure_skip_tls_verify: bool = False  # do not verify a live server's certificate
output_dir: str = "../data/processed/08_recommend"  # where tables, results.json and headlines go

# %% tags=["setup"] jupyter={"source_hidden": true}
from html import escape
from pathlib import Path

from IPython.display import HTML, Markdown, display

from throttlelab.analysis.rightsizing import RightsizingRequest
from throttlelab.analysis.rightsizing import rightsize_read
from throttlelab.analysis.rightsizing import run_results
from throttlelab.analysis.rightsizing import (advice_sentences, decision_table, label, marks_frame, method_lines,
                                              recommendations_frame, throttled_ratio_frame, usage_distribution_frame)
from throttlelab.ingest.prometheus import read_request
from throttlelab.report import notebook as tn
from throttlelab.report import charts
from throttlelab.report.recommend import table_html

out = tn.start(output_dir, name="08_recommend")
sample = Path("../data/published/samples/shop_namespace.om.gz")

# %% [markdown]
# ## What this notebook does
#
# From a Prometheus (cAdvisor CPU and CFS counters, kube-state-metrics requests, limits and owners), or a saved
# OpenMetrics export of one, this notebook recommends per workload container (a container of a Deployment,
# StatefulSet, DaemonSet or CronJob, every pod of the window pooled) a request (p95 of demand: usage plus the time the limit
# denied it) and the smallest limit that keeps the predicted share of throttled CFS periods under a target, each
# with a 90% block-bootstrap interval, next to what a KRR-style (p95 of usage, no limit) and a VPA-style (p90 of
# decayed usage + 15%) recommendation would be. The default input is a bundled export of a six-container namespace,
# loaded into a temporary local Prometheus when the Debian `prometheus` package is installed, else read directly.

# %% [markdown]
# ## Sizing the workloads
# The same reading and numbers as `throttlelab recommend` with the same input and options: every pod of a workload
# (replicas, rollouts, Job runs) pooled into one row per container.

# %%
from throttlelab.report.recommend import recommend_answer

reading_sample = not (prometheus_url or openmetrics_path)
request = RightsizingRequest(
    prometheus_url=prometheus_url, openmetrics_path=openmetrics_path or ("" if prometheus_url else str(sample)),
    read_directly=not use_prometheus, since=since, end=end,
    namespace=namespace or ("shop" if reading_sample else ""),  # the bundled sample is one namespace, shop
    selector=selector, throttle_target=throttle_target, limit_policy=limit_policy, min_history=min_history,
    bearer_token_file=bearer_token_file, insecure_skip_tls_verify=insecure_skip_tls_verify)
run = rightsize_read(read_request(request))
fetched, recs, settings = run.fetched, run.recommendations, run.settings
lead, rests_on = recommend_answer(recs, settings, source=run.source)
tn.answer(lead, rests_on=rests_on)

# %% [markdown]
# ## Read the workloads

# %%
display(Markdown(f"**{len(recs)} workload containers** from `{run.source}` ({run.how}); window {run.window_text()}; "
                 f"{fetched.queries} HTTP queries.\n\n" + "\n".join(f"* {escape(n)}" for n in run.notes)))

# %% [markdown]
# ## Decisions
# One row per workload container: its pods and pod-hours, the decision, request and limit now and new (millicores;
# "keep" where nothing changes, * where a first round: run again after 6 h) with 90% intervals, usage, the share of CFS periods throttled (at the current limit, and its p95 over 5-minute
# windows), throttled seconds per pod-hour, and what KRR-style and VPA-style sizing would set. The reason of each
# decision follows the table.

# %%
table = decision_table(recs)
tn.save_table(recommendations_frame(recs), "recommendations")
for r in recs:
    tn.headline(f"{label(r)}: {r.decision}: " + (
        f"limit {r.current_limit_cores or 'none'} -> {r.recommended_limit_cores if r.recommended_limit_cores else 'none'} cores"
        f" (throttled {r.throttled_ratio:.0%})" if r.throttled_ratio is not None else r.reason))
display(HTML(table_html(table)))
display(Markdown("\n".join(f"* **{label(r)}** ({r.pods} pods, {r.pod_hours:,.1f} pod-hours): {r.reason}"
                            + "".join(f" **{s}**" for s in advice_sentences(r)) for r in recs)))

# %% [markdown]
# ## Threads and autoscalers
# Where a container's runtime says how many threads it runs (Go's GOMAXPROCS, the JVM's available processors), its
# row above ends with thread advice against the recommended limit; where an HPA scales its workload on CPU, with the
# replicas the new requests imply. How, and each runtime's rule under a CPU quota:

# %%
display(Markdown("\n".join(f"* {line}" for line in method_lines())))

# %% [markdown]
# ## Usage distributions with requests and limits
# **What each chart shows:** for one workload container (all its pods), the share of time (y) spent at each CPU level (x): blue bars are the
# usage Prometheus saw, orange outlines the demand (usage plus the time the limit held the container back). Dashed rules
# are the current request and limit, solid rules the recommended ones. **How to read it:** orange mass to the right of
# the current limit (red dashed) is work the limit denied; a recommended limit (blue solid) right of it raises the
# limit, one far left of an unused current limit lowers it. Usage-only tools (KRR, VPA) size from the blue bars.

# %%
for r in recs:
    display(charts.usage_distribution_chart(usage_distribution_frame(run.workload_of(r)), marks_frame(r),
                                            title=f"{label(r)}: {r.decision}"))

# %% [markdown]
# ## Throttled ratio over time
# **What each chart shows:** the share of CFS periods in which the container was throttled (all its pods), per 30 minutes, with the
# target (red dashed). **How to read it:** a line mostly above the target is a container its limit starves; a line at
# zero is one that never reaches its limit (containers without a limit have no CFS counters and no chart).

# %%
for r in recs:
    ratio = throttled_ratio_frame(run.workload_of(r))
    if ratio.height:
        display(charts.throttled_ratio_chart(ratio, target=throttle_target, title=f"{label(r)}: throttled ratio"))

# %%
tn.write_results(run_results(run))
