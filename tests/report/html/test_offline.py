"""Tests of throttlelab.report.html.offline: charts drawn by an inline vega bundle, emitted once per page."""

from __future__ import annotations

import json

import altair as alt
import polars as pl

from throttlelab.report.html import offline


def test_script_json_cannot_close_the_script_element():
    text = offline.script_json({"title": "</script><script>alert(1)</script>&"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"title": "</script><script>alert(1)</script>&"}


def test_chart_html_with_and_without_the_bundle():
    spec = {"description": 'CPU "limit" <chart>', "mark": "point"}
    plain = offline.chart_html(spec, with_bundle=False)
    assert plain.count("<script") == 1 and 'aria-label="CPU &quot;limit&quot; &lt;chart&gt;"' in plain
    bundled = offline.chart_html(spec, with_bundle=True, title="t")
    assert bundled.count("<script") == 2 and "vegaEmbed" in offline.vega_bundle()
    assert len(bundled) > 100_000  # the bundle itself, no network
    assert "</script" not in offline.vega_bundle()


def test_the_renderer_emits_the_bundle_once_per_page():
    offline.enable(reset=True)
    assert alt.renderers.active == offline.RENDERER
    chart = alt.Chart(pl.DataFrame({"x": [1, 2]})).mark_point().encode(x="x:Q")
    first = chart._repr_mimebundle_()
    second = chart._repr_mimebundle_()
    html = lambda b: (b[0] if isinstance(b, tuple) else b)["text/html"]  # noqa: E731
    assert len(html(first)) > 100_000  # the bundle rides with the first chart
    assert len(html(second)) < 10_000
    offline.enable(reset=True)
    assert len(html(chart._repr_mimebundle_())) > 100_000
