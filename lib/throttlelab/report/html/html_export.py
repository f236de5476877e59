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


def one_line(error: str | None, limit: int = 200) -> str:
    """An error as one short line: its first line, cut at ``limit`` characters.

    >>> one_line("ValueError: bad\\nmore"), one_line("x" * 300)[-3:]
    ('ValueError: bad', 'x …')
    """
    first = str(error or "").strip().splitlines()[0] if str(error or "").strip() else ""
    return first if len(first) <= limit else first[:limit - 2].rstrip() + " …"


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def error_html(output: Any) -> str:
    """A cell's error output as one line, with the traceback collapsed under it."""
    e = html.escape
    line = one_line(f"{output.get('ename', 'Error')}: {output.get('evalue', '')}")
    trace = _ANSI.sub("", "\n".join(output.get("traceback") or []))
    return (f'<div class="tl-error"><p class="tl-status-failed">{e(line)}</p><details class="tl-traceback">'
            f"<summary>Traceback</summary><pre>{e(trace)}</pre></details></div>")


def markdown_html(text: str) -> str:
    """A little markdown as HTML: paragraphs, ``- `` lists, ``*em*``, ``**strong**`` and code spans.

    >>> markdown_html("One *two* `x`.\\n\\n- **a**: b")
    '<p>One <em>two</em> <code>x</code>.</p><ul><li><strong>a</strong>: b</li></ul>'
    """
    def span(t: str) -> str:
        t = inline(t)
        t = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", t)
        return re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"<em>\1</em>", t)

    out = []
    for block in re.split(r"\n\s*\n", str(text).strip()):
        lines = [ln.strip() for ln in block.splitlines() if ln.strip()]
        if lines and all(ln.startswith("- ") for ln in lines):
            out.append("<ul>" + "".join(f"<li>{span(ln[2:])}</li>" for ln in lines) + "</ul>")
        elif lines:
            out.append(f"<p>{span(' '.join(lines))}</p>")
    return "".join(out)


def answer_html(doc: dict[str, Any] | None, *, status: str = "ok", error: str | None = None) -> str:
    """The decision box (``class="answer"``): the lead, what it rests on, then findings and method collapsed.

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
    if doc.get("rests_on"):
        parts.append(f'<p class="answer-basis"><strong>Rests on:</strong> {inline(doc["rests_on"])}</p>')
    items = "<ul>" + "".join(f"<li>{inline(h)}</li>" for h in heads) + "</ul>"
    if heads and lead:
        parts.append(f'<details class="answer-findings"><summary>Findings ({len(heads)})</summary>{items}</details>')
    elif heads:
        parts.append(items)
    if doc.get("method"):
        parts.append(f'<details class="answer-method"><summary>Method</summary>{markdown_html(doc["method"])}</details>')
    cls = "answer answer-failed" if status == "failed" else "answer"
    return f'<section class="{cls}" aria-label="Answer">{"".join(parts)}</section>'


def header_html(title: str, status: str, error: str | None, provenance: dict[str, Any],
                answer: dict[str, Any] | None = None) -> str:
    """The report's header: title, the decision box, status and provenance, every string escaped."""
    e = html.escape
    rows = []
    for key, value in _flatten(provenance):
        rows.append(f"<tr><th>{e(key)}</th><td>{e(str(value))}</td></tr>")
    error = one_line(error) if error else error
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
    nb.cells = for_readers(nb.cells)
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


def for_readers(cells: list[Any]) -> list[Any]:
    """The cells a report shows: what a reader needs, in the notebook's order.

    * the answer box output is dropped (the header shows it), and so are warnings (``stderr``);
    * cells tagged ``setup`` (imports, the output folder) show nothing but an error;
    * "not run" notes (:func:`throttlelab.report.notebook.not_run`) become one collapsed line where the first was;
    * a section (a markdown cell and the code cells up to the next markdown cell) whose code shows nothing is
      dropped, caption and all;
    * a markdown cell tagged ``method`` is collapsed under "Method";
    * an error shows as one line, its traceback collapsed under it.
    """
    import copy

    import nbformat

    cells = [copy.deepcopy(c) for c in cells]
    not_run: list[str] = []
    first_not_run = None
    for i, cell in enumerate(cells):
        if cell.get("cell_type") != "code":
            continue
        keep = []
        for o in cell.get("outputs") or []:
            if _role(o) == "not-run":
                not_run.append(_text(o))
                first_not_run = i if first_not_run is None else first_not_run
            elif _role(o) == "answer" or (o.get("output_type") == "stream" and o.get("name") == "stderr"):
                continue
            elif "setup" in _tags(cell) and o.get("output_type") != "error":
                continue
            elif o.get("output_type") == "error":  # one line; the traceback collapsed
                keep.append(nbformat.v4.new_output("display_data", data={"text/html": error_html(o)}))
            else:
                keep.append(o)
        cell.outputs = keep
    out, marker = [], None
    for i, cell in enumerate(cells):
        if cell.get("cell_type") == "markdown":
            if "setup" in _tags(cell) or _empty_section(cells, i):
                continue
            if "method" in _tags(cell):
                cell.source = f"<details class=\"tl-method\"><summary>Method</summary>\n\n{cell.source}\n\n</details>"
        out.append(cell)
        if i == first_not_run:
            marker = len(out)
    if not_run:
        reasons = list(dict.fromkeys(r.removeprefix("Not run: ").rstrip(".") for r in not_run))
        items = "".join(f"<li>{inline(r)}</li>" for r in reasons)
        summary = f"Not run here: {len(not_run)} part{'s' if len(not_run) != 1 else ''} of this report"
        note = nbformat.v4.new_markdown_cell(
            f'<details class="tl-not-run"><summary>{summary}</summary><ul>{items}</ul></details>')
        out.insert(marker if marker is not None else len(out), note)
    return out


#: Code cells that are no section's content: parameters (also papermill's injected ones) and the setup.
_NOT_CONTENT = {"parameters", "injected-parameters", "setup"}


def _empty_section(cells: list[Any], i: int) -> bool:
    """Is markdown cell ``i`` (with the markdown cells right after it) the caption of code cells that show nothing?"""
    code = []
    for c in cells[i + 1:]:
        if c.get("cell_type") == "markdown":
            if code:
                break
        elif c.get("cell_type") == "code" and not _NOT_CONTENT & set(_tags(c)):
            code.append(c)
    return bool(code) and not any(c.get("outputs") for c in code)


def _tags(cell: Any) -> list[str]:
    return list((cell.get("metadata") or {}).get("tags") or [])


def _role(output: Any) -> str | None:
    return (output.get("metadata") or {}).get("throttlelab", {}).get("role")


def _text(output: Any) -> str:
    data = output.get("data") or {}
    text = data.get("text/plain") or data.get("text/markdown") or ""
    return ("".join(text) if isinstance(text, list) else str(text)).strip().strip("*")


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
