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
# # 08 · Right-sizing: which CPU request and limit should each running container get, given how often it is throttled?
#
# From a Prometheus (cAdvisor CPU and CFS counters, kube-state-metrics requests and limits), or a saved OpenMetrics
# export of one, this notebook recommends per container a request (p95 of demand: usage plus the time the limit
# denied it) and the smallest limit that keeps the predicted share of throttled CFS periods under a target, each
# with a 90% block-bootstrap interval, next to what a KRR-style (p95 of usage, no limit) and a VPA-style (p90 of
# decayed usage + 15%) recommendation would be. The default input is a bundled export of a six-container namespace,
# loaded into a temporary local Prometheus when the Debian `prometheus` package is installed, else read directly.

# %% tags=["parameters"]
prometheus_url: str = ""  # a live Prometheus, e.g. http://127.0.0.1:9090; "" reads openmetrics_path instead
openmetrics_path: str = ""  # a saved OpenMetrics export (.om or .om.gz); "" is the bundled sample namespace
use_prometheus: bool = True  # load an export into a temporary local Prometheus when installed (False: read directly)
namespace: str = "shop"  # "" for every namespace
selector: str = ""  # pod label selector as for kubectl -l (key-equals-value pairs, comma-separated)
since: str = ""  # window, e.g. 14d; "" is 14d for a live server, the whole export otherwise
end: str = ""  # end of the window (unix s or ISO time); "" is now, or the export's last sample
throttle_target: float = 0.05  # largest acceptable predicted throttled-period ratio
limit_policy: str = "target"  # target, none (requests only) or keep (keep current limits)
min_history: str = "24h"  # shorter windows are "too little data"
bearer_token_file: str = ""  # for a live server behind auth
insecure_skip_tls_verify: bool = False  # do not verify a live server's certificate
output_dir: str = "../data/processed/08_recommend"  # where tables, results.json and headlines go

# %% [markdown]
# ## Setup
# Imports, the output folder, and the offline chart renderer.

# %%
from pathlib import Path

from IPython.display import HTML, Markdown, display

from throttlelab.analysis.rightsizing import Settings, rightsize_all
from throttlelab.analysis.rightsizing import rightsizing_results
from throttlelab.analysis.rightsizing import (decision_table, marks_frame, recommendations_frame,
                                                    throttled_ratio_frame, usage_distribution_frame)
from throttlelab.ingest.prometheus import parse_duration, parse_time
from throttlelab.ingest.prometheus import read_source
from throttlelab.report import notebook as tn
from throttlelab.report.charts import rightsizing_charts as charts
from throttlelab.report.recommend_html import table_html

out = tn.start(output_dir, name="08_recommend")
sample = Path("../data/published/samples/shop_namespace.om.gz")

# %% [markdown]
# ## Read the containers

# %%
fetched, source, how = read_source(
    prometheus_url=prometheus_url or None, openmetrics_path=openmetrics_path or (None if prometheus_url else str(sample)),
    use_prometheus=use_prometheus, window_s=parse_duration(since) if since else None, end=parse_time(end),
    namespace=namespace or None, selector=selector or None, bearer_token_file=bearer_token_file or None,
    insecure_skip_tls_verify=insecure_skip_tls_verify)
settings = Settings(throttle_target=throttle_target, limit_policy=limit_policy, min_history_s=parse_duration(min_history))
recs = rightsize_all(fetched.containers, settings)
display(Markdown(f"**{len(recs)} containers** from `{source}` ({how}); window {(fetched.end - fetched.start) / 3600:,.1f} h "
                 f"at {fetched.step_s:g}-s steps; {fetched.queries} HTTP queries."))

# %% [markdown]
# ## Decisions
# One row per container: the decision, request and limit now -> recommended [90% interval], usage percentiles, the
# share of CFS periods throttled (overall, and its p95 over 5-minute windows), throttled seconds per hour, and what
# KRR-style and VPA-style sizing would set. The reason of each decision follows the table.

# %%
table = decision_table(recs)
tn.save_table(recommendations_frame(recs), "recommendations")
for r in recs:
    tn.headline(f"{r.pod}/{r.container}: {r.decision}: " + (
        f"limit {r.current_limit_cores or 'none'} -> {r.recommended_limit_cores if r.recommended_limit_cores else 'none'} cores"
        f" (throttled {r.throttled_ratio:.0%})" if r.throttled_ratio is not None else r.reason))
display(HTML(table_html(table)))
display(Markdown("\n".join(f"* **{r.pod}/{r.container}**: {r.reason}" for r in recs)))

# %% [markdown]
# ## Usage distributions with requests and limits
# **What each chart shows:** for one container, the share of time (y) spent at each CPU level (x): blue bars are the
# usage Prometheus saw, orange bars the demand (usage plus the time the limit held the container back). Dashed rules
# are the current request and limit, solid rules the recommended ones. **How to read it:** orange mass to the right of
# the current limit (red dashed) is work the limit denied; a recommended limit (blue solid) right of it raises the
# limit, one far left of an unused current limit lowers it. Usage-only tools (KRR, VPA) size from the blue bars.

# %%
by_key = {c.key: c for c in fetched.containers}
for r in recs:
    c = by_key[(r.namespace, r.pod, r.container)]
    display(charts.usage_distribution_chart(usage_distribution_frame(c), marks_frame(r),
                                            title=f"{r.pod}/{r.container}: {r.decision}"))

# %% [markdown]
# ## Throttled ratio over time
# **What each chart shows:** the share of CFS periods in which the container was throttled, per 30 minutes, with the
# target (red dashed). **How to read it:** a line mostly above the target is a container its limit starves; a line at
# zero is one that never reaches its limit (containers without a limit have no CFS counters and no chart).

# %%
for r in recs:
    ratio = throttled_ratio_frame(by_key[(r.namespace, r.pod, r.container)])
    if ratio.height:
        display(charts.throttled_ratio_chart(ratio, target=throttle_target, title=f"{r.pod}/{r.container}: throttled ratio"))

# %%
tn.write_results(rightsizing_results(
    recs, settings, source=source, how=how, window=(fetched.start, fetched.end, fetched.step_s),
    queries=fetched.queries, namespace=namespace, selector=selector, min_history=min_history))
