"""Tests of throttlelab.report.recommend.recommend_html: the recommend page, decisions first, every string escaped."""

from __future__ import annotations

import polars as pl

from tests.analysis.synthetic_cpu import container
from throttlelab.analysis.rightsizing.recommendation import Settings
from throttlelab.analysis.rightsizing.rightsizing_parallel import rightsize_all
from throttlelab.analysis.rightsizing.rightsizing_run import RightsizingRun
from throttlelab.ingest.prometheus.container_cpu import Fetch
from throttlelab.ingest.prometheus.workload_cpu import with_workloads
from throttlelab.report.recommend.recommend_html import recommend_html, table_html


def test_table_html_escapes_and_has_no_reprs():
    text = table_html(pl.DataFrame({"a<b": ["<script>"], "n": [1.5]}))
    assert text == "<table class='tl-table'><tr><th>a&lt;b</th><th>n</th></tr><tr><td>&lt;script&gt;</td><td>1.5</td></tr></table>"


def test_page_has_the_decisions_first_and_two_charts_per_container():
    cs = [container(), container("<img src=x>", seed=2)]
    fetched = with_workloads(Fetch(cs, cs[0].times[0] - 60, cs[0].times[-1], 60.0, 9))
    recs = rightsize_all(fetched.workloads)
    page = recommend_html(RightsizingRun(fetched, "http://127.0.0.1:9090", "Prometheus HTTP API", Settings(), recs,
                                         ("a note said once",)))
    assert page.index("<table class='tl-table'>") < page.index("tl-chart")
    assert "<b>2 workload containers: " in page and "2026-01-01 00:00 UTC" in page and "<p>a note said once</p>" in page
    assert "48.0 h observed at 60-s steps" in page
    assert "<img src=x>" not in page and "shop/Pod/&lt;img src=x&gt;/app" in page
    assert "shop/StatefulSet/web/app" in page and "1 pod (newest web-0), 48.0 pod-hours" in page
    assert page.count("class=\"tl-chart\"") == 4
    assert page.count("vegaEmbed=") <= 1 and len(page) > 100_000  # the bundle once


def test_page_shows_each_rows_thread_advice_and_hpa_and_states_the_runtime_rules():
    import dataclasses

    from throttlelab.analysis.rightsizing.hpa import hpa_scaling
    from throttlelab.analysis.rightsizing.runtime_advice import runtime_advice

    cs = [container()]
    fetched = with_workloads(Fetch(cs, cs[0].times[0] - 60, cs[0].times[-1], 60.0, 9))
    r = rightsize_all(fetched.workloads)[0]
    r = dataclasses.replace(r, runtime_advice=runtime_advice("go", 8, 2.0),
                            hpa=hpa_scaling("web<x>", "Resource", 0.7, 2, 10, total_usage_p95=2.1, request_now=0.5,
                                            request_new=0.3))
    page = recommend_html(RightsizingRun(fetched, "x", "y", Settings(), [r]))
    assert "<b>GOMAXPROCS is 8 under a 2-core limit: set GOMAXPROCS=2" in page
    assert "HPA web&lt;x&gt; scales on CPU at 70% of the request: the new request takes it from 6 to 10" in page
    method = page[page.index("Method: runtime threads and autoscalers"):]
    assert all(w in method for w in ("GOMAXPROCS", ".NET", "Node.js", "llama.cpp/ollama", "container_threads",
                                     "automaxprocs_gomaxprocs.csv", "50% less throughput"))
