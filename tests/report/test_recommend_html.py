"""Tests of throttlelab.report.recommend_html: the recommend page, decisions first, every string escaped."""

from __future__ import annotations

import polars as pl

from tests.analysis.synthetic_cpu import container
from throttlelab.analysis.rightsizing.rightsizing import Settings, rightsize_all
from throttlelab.ingest.prometheus.container_cpu import Fetch
from throttlelab.report.recommend_html import recommend_html, table_html


def test_table_html_escapes_and_has_no_reprs():
    text = table_html(pl.DataFrame({"a<b": ["<script>"], "n": [1.5]}))
    assert text == "<table class='tl-table'><tr><th>a&lt;b</th><th>n</th></tr><tr><td>&lt;script&gt;</td><td>1.5</td></tr></table>"


def test_page_has_the_decisions_first_and_two_charts_per_container():
    cs = [container(), container("<img src=x>", seed=2)]
    fetched = Fetch(cs, cs[0].times[0] - 60, cs[0].times[-1], 60.0, 9)
    recs = rightsize_all(cs)
    page = recommend_html(recs, fetched=fetched, settings=Settings(), source="http://127.0.0.1:9090")
    assert page.index("<table class='tl-table'>") < page.index("tl-chart")
    assert "<b>2 containers: " in page and "2026-01-01 00:00 UTC" in page
    assert "<img src=x>" not in page and "shop/&lt;img src=x&gt;/app" in page
    assert page.count("class=\"tl-chart\"") == 4
    assert page.count("vegaEmbed=") <= 1 and len(page) > 100_000  # the bundle once
