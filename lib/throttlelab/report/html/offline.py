"""Altair charts that draw with no network.

The vega bundle (vega, vega-lite, vega-embed from ``vl_convert``) is emitted once
per page, in the first chart's output; every chart then emits only a ``<div>``
and a small script calling ``vegaEmbed`` on its spec.  Interactive (tooltips)
and offline, in JupyterLab and in nbconvert's HTML alike.

Each chart output also carries its Vega-Lite spec (:data:`VEGALITE_MIME`) and
is marked ``{"throttlelab": {"role": "chart"}}`` in its metadata, so that the
study runner can add a static PNG beside it (:mod:`throttlelab.report.html.static_charts`).

``enable()`` registers and activates the ``throttlelab`` altair renderer.
"""

from __future__ import annotations

import functools
import html
import itertools
import json
import uuid
from typing import Any

RENDERER = "throttlelab"
#: Mime type of the spec carried beside the HTML (the Vega-Lite major of the installed altair).
VEGALITE_MIME = "application/vnd.vegalite.v6+json"
CHART_METADATA = {"throttlelab": {"role": "chart"}}
_state = {"bundle_emitted": False}
_ids = itertools.count(1)


@functools.lru_cache(maxsize=1)
def vega_bundle() -> str:
    """The JavaScript bundle defining ``window.vegaEmbed`` (about 0.9 MB)."""
    import vl_convert

    return vl_convert.javascript_bundle().replace("</script", "<\\/script")


def script_json(value: Any) -> str:
    """JSON safe to embed inside a ``<script>`` element."""
    text = json.dumps(value, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def chart_html(spec: dict, *, with_bundle: bool, title: str | None = None) -> str:
    """HTML fragment that draws ``spec`` with vega-embed (bundle included if asked)."""
    div_id = f"tl-chart-{uuid.uuid4().hex[:8]}-{next(_ids)}"
    label = html.escape(title or spec.get("description") or "chart", quote=True)
    parts = []
    if with_bundle:
        parts.append(f'<script type="text/javascript">{vega_bundle()}</script>')
    # full width: a chart whose width is "container" takes the page's width (axes and legend included)
    parts.append(f'<div id="{div_id}" class="tl-chart" style="width:100%" role="img" aria-label="{label}"></div>')
    parts.append(
        "<script type=\"text/javascript\">(function(){"
        f"var spec={script_json(spec)};var el=document.getElementById({script_json(div_id)});"
        "function draw(n){if(window.vegaEmbed){window.vegaEmbed(el,spec,{actions:false,renderer:'svg'})"
        ".then(function(){el.setAttribute('data-drawn','1');follow();})"
        ".catch(function(e){el.setAttribute('data-error',String(e));el.textContent='Chart failed: '+e;console.error(e);});}"
        "else if(n<200){setTimeout(function(){draw(n+1);},25);}"
        "else{el.textContent='Chart failed: vega bundle missing';console.error('vega bundle missing');}}"
        # a page-wide chart follows its container's width: vega re-measures only on a window resize, and a
        # scroll bar appearing as the page fills, or a side panel opening, resizes the container alone
        "function follow(){if(!window.ResizeObserver)return;var w=el.clientWidth;"
        "new ResizeObserver(function(){if(el.clientWidth!==w){w=el.clientWidth;"
        "window.dispatchEvent(new Event('resize'));}}).observe(el);}"
        "draw(0);})();</script>"
    )
    return "".join(parts)


def _render(spec: dict, **_: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    with_bundle = not _state["bundle_emitted"]
    _state["bundle_emitted"] = True
    return ({"text/html": chart_html(spec, with_bundle=with_bundle), VEGALITE_MIME: spec,
             "text/plain": f"Chart: {_title(spec) or 'untitled'}"}, CHART_METADATA)


def _title(spec: dict) -> str:
    t = spec.get("title")
    if isinstance(t, dict):
        t = t.get("text")
    return " ".join(t) if isinstance(t, list) else str(t or "")


def enable(*, reset: bool = False) -> None:
    """Register and enable the offline renderer for altair.

    Parameters
    ----------
    reset
        Emit the bundle again with the next chart (for a new page).
    """
    import altair as alt

    if reset:
        _state["bundle_emitted"] = False
    if RENDERER not in alt.renderers.names():
        alt.renderers.register(RENDERER, _render)
    alt.renderers.enable(RENDERER)
    # Tables in charts are inlined; never write data files next to the notebook.
    alt.data_transformers.disable_max_rows()
