"""Small HTML pages for the headless-Chromium tests: one that draws its chart offline, one that misbehaves."""

from __future__ import annotations

from pathlib import Path

from throttlelab.report.html.offline import chart_html

SPEC = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "data": {"values": [{"x": 1}, {"x": 2}]},
        "mark": "point", "encoding": {"x": {"field": "x", "type": "quantitative"}}}


def good_page(path: Path) -> Path:
    path.write_text(f"<!DOCTYPE html><html><head><title>good</title></head><body>"
                    "<div class='answer'><p>Give it 2 cores.</p></div>"
                    f"{chart_html(SPEC, with_bundle=True, title='points')}</body></html>")
    return path


def bad_page(path: Path) -> Path:
    """A chart with no vega bundle, a request off the machine, and a console error."""
    path.write_text("<!DOCTYPE html><html><head><title>bad</title></head><body>"
                    f"{chart_html(SPEC, with_bundle=False)}"
                    "<img src='http://example.invalid/x.png'><script>console.error('boom')</script></body></html>")
    return path
