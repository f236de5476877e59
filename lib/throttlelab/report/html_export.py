"""Executed notebook -> self-contained HTML report (code hidden, no network)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

TEMPLATES = Path(__file__).parent / "templates"


def inline(text: str) -> str:
    """Escape ``text`` for HTML, keeping markdown code spans as ``<code>``.

    >>> inline("only `auto` <b>")
    'only <code>auto</code> &lt;b&gt;'
    """
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(str(text)))


def answer_html(doc: dict[str, Any] | None, *, status: str = "ok", error: str | None = None) -> str:
    """The decision box (``class="answer"``): the answer, its findings and what it rests on.

    >>> answer_html({"answer": "Give it 4 cores.", "rests_on": "16 runs", "headlines": []})
    '<section class="answer" aria-label="Answer"><p class="answer-lead"><strong>Answer.</strong> Give it 4 cores.</p><p class="answer-basis"><strong>Rests on:</strong> 16 runs</p></section>'
    """
    e = html.escape
    doc = doc or {}
    lead, heads = doc.get("answer"), [str(h) for h in doc.get("headlines") or []]
    parts = []
    if status == "failed":
        parts.append(f'<p class="answer-lead"><strong>No answer:</strong> the notebook failed ({e(error or "unknown error")}).</p>')
    elif not lead and not heads:
        parts.append('<p class="answer-lead"><strong>No answer:</strong> this notebook recorded no finding.</p>')
    if lead:
        parts.append(f'<p class="answer-lead"><strong>Answer.</strong> {inline(lead)}</p>')
    if heads:
        parts.append("<ul>" + "".join(f"<li>{inline(h)}</li>" for h in heads) + "</ul>")
    if doc.get("rests_on"):
        parts.append(f'<p class="answer-basis"><strong>Rests on:</strong> {inline(doc["rests_on"])}</p>')
    cls = "answer answer-failed" if status == "failed" else "answer"
    return f'<section class="{cls}" aria-label="Answer">{"".join(parts)}</section>'


def header_html(title: str, status: str, error: str | None, provenance: dict[str, Any],
                answer: dict[str, Any] | None = None) -> str:
    """The report's header: title, the decision box, status and provenance, every string escaped."""
    e = html.escape
    rows = []
    for key, value in _flatten(provenance):
        rows.append(f"<tr><th>{e(key)}</th><td>{e(str(value))}</td></tr>")
    err = f'<p class="tl-status-failed">This notebook failed: {e(error)}</p>' if error else ""
    cls = "tl-status-ok" if status == "ok" else "tl-status-failed"
    return (
        '<header class="tl-header">'
        f"<h1>{e(title)}</h1>"
        f"{answer_html(answer, status=status, error=error)}"
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
    for cell in nb.cells:  # the header shows the answer box; the notebook's own copy would repeat it
        if cell.get("outputs"):
            cell.outputs = [o for o in cell.outputs if not _is_answer(o)]
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


def _is_answer(output: Any) -> bool:
    return (output.get("metadata") or {}).get("throttlelab", {}).get("role") == "answer"


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
