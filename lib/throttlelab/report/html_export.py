"""Executed notebook -> self-contained HTML report (code hidden, no network)."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

TEMPLATES = Path(__file__).parent / "templates"


def header_html(title: str, status: str, error: str | None, provenance: dict[str, Any]) -> str:
    """The report's header: title, status and provenance, every string escaped."""
    e = html.escape
    rows = []
    for key, value in _flatten(provenance):
        rows.append(f"<tr><th>{e(key)}</th><td>{e(str(value))}</td></tr>")
    err = f'<p class="tl-status-failed">This notebook failed: {e(error)}</p>' if error else ""
    cls = "tl-status-ok" if status == "ok" else "tl-status-failed"
    return (
        '<header class="tl-header">'
        f"<h1>{e(title)}</h1>"
        f'<p>Status: <span class="{cls}">{e(status)}</span> &middot; '
        f'<a href="../../index.html">all reports</a> &middot; '
        '<a href="results.json">results.json</a> &middot; <a href="notebook.ipynb">notebook</a></p>'
        f"{err}"
        f"<details><summary>Provenance</summary><table>{''.join(rows)}</table></details>"
        "</header>"
    )


def export_html(executed: Path, dest: Path, *, header: str) -> Path:
    """Convert ``executed`` to ``dest`` with input cells hidden and the header on top."""
    import nbformat
    from nbconvert import HTMLExporter

    nb = nbformat.read(str(executed), as_version=4)
    nb.metadata["title"] = header_title(header)
    exporter = HTMLExporter(
        extra_template_basedirs=[str(TEMPLATES)],
        template_name="throttlelab",
        exclude_input=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
    )
    body, _ = exporter.from_notebook_node(nb, resources={"throttlelab_header": header})
    dest.write_text(body, encoding="utf-8")
    return dest


def header_title(header: str) -> str:
    start = header.find("<h1>") + 4
    return html.unescape(header[start:header.find("</h1>")]) if start > 3 else "throttlelab report"


def _flatten(d: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(d, dict):
        out = []
        for k, v in d.items():
            out.extend(_flatten(v, f"{prefix}{k}." if not isinstance(v, dict) or not v else f"{prefix}{k}."))
        return out
    if isinstance(d, (list, tuple)):
        return [(prefix.rstrip("."), json.dumps(d))]
    return [(prefix.rstrip("."), d)]
