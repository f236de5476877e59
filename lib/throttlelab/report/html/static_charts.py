"""Static PNGs beside the interactive charts, so a downloaded notebook shows them untrusted.

JupyterLab runs no script in the output of a notebook it has not trusted, so
the vega-embed HTML of :mod:`throttlelab.report.html.offline` stays blank there.
After a notebook has run, :func:`add_static_images` renders each chart's
Vega-Lite spec to a PNG (``vl_convert``, no network) and stores it in the same
output; :func:`for_download` then drops the script-carrying HTML from the copy
people download, leaving the PNG (shown by JupyterLab, VS Code and GitHub) and
the spec.  The HTML report keeps the interactive chart.  A chart as wide as the page
(``"width": "container"``) is drawn :data:`~throttlelab.report.charts.style.STATIC_WIDTH` pixels wide.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from throttlelab.report.html.offline import VEGALITE_MIME


def is_chart(output: Any) -> bool:
    """True for an output of the offline chart renderer."""
    return ((output.get("metadata") or {}).get("throttlelab") or {}).get("role") == "chart" \
        and VEGALITE_MIME in (output.get("data") or {})


def add_static_images(notebook: Path, *, scale: float = 1.0) -> int:
    """Add an ``image/png`` to every chart output of ``notebook`` (in place); returns how many."""
    import nbformat
    import vl_convert

    from throttlelab.report.charts.style import with_static_width

    nb = nbformat.read(str(notebook), as_version=4)
    done = 0
    for output in _outputs(nb):
        if is_chart(output) and "image/png" not in output["data"]:
            spec = with_static_width(output["data"][VEGALITE_MIME])  # a page-wide chart has no page here
            try:
                png = vl_convert.vegalite_to_png(spec, scale=scale)
            except Exception:  # a spec vl_convert cannot draw keeps its HTML only
                continue
            output["data"]["image/png"] = base64.b64encode(png).decode("ascii")
            done += 1
    if done:
        nbformat.write(nb, str(notebook))
    return done


def for_download(notebook: Path) -> int:
    """Drop the script-carrying HTML of chart outputs that have a PNG (in place); returns how many."""
    import nbformat

    nb = nbformat.read(str(notebook), as_version=4)
    done = 0
    for output in _outputs(nb):
        if is_chart(output) and "image/png" in output["data"] and "text/html" in output["data"]:
            del output["data"]["text/html"]
            done += 1
    if done:
        nbformat.write(nb, str(notebook))
    return done


def _outputs(nb: Any):
    for cell in nb.cells:
        yield from (o for o in cell.get("outputs", []) if o.get("output_type") in ("display_data", "execute_result"))
