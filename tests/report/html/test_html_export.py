"""Tests of throttlelab.report.html.html_export: the escaped header and the code-free HTML report."""

from __future__ import annotations

import nbformat

from throttlelab.report.html.html_export import export_html, header_html, header_title


def test_header_escapes_and_flattens_provenance():
    head = header_html("Limits <&> threads", "failed", "cell 3 raised <ValueError>",
                       {"git_commit": "abc", "machine": {"cpus": 2}, "inputs": ["a.csv", "b.csv"]})
    assert "<h1>Limits &lt;&amp;&gt; threads</h1>" in head
    assert 'class="tl-status-failed">failed<' in head
    assert "This notebook failed: cell 3 raised &lt;ValueError&gt;" in head
    assert "<tr><th>machine.cpus</th><td>2</td></tr>" in head
    assert "<tr><th>inputs</th><td>[&quot;a.csv&quot;, &quot;b.csv&quot;]</td></tr>" in head
    assert header_title(head) == "Limits <&> threads"
    assert header_title("<p>no title</p>") == "throttlelab report"
    assert "tl-status-ok" in header_html("t", "ok", None, {})


def test_export_hides_code_and_puts_the_header_on_top(tmp_path):
    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("secret_variable_name = 41 + 1\nsecret_variable_name")
    code.outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "42"}, execution_count=1)]
    nb.cells = [nbformat.v4.new_markdown_cell("# The answer"), code]
    src = tmp_path / "executed.ipynb"
    nbformat.write(nb, str(src))
    dest = export_html(src, tmp_path / "report.html", header=header_html("Answer", "ok", None, {"k": "v"}))
    text = dest.read_text()
    assert "secret_variable_name" not in text
    assert "42" in text and "The answer" in text
    assert text.index("tl-header") < text.index("The answer")
    assert "<title>Answer</title>" in text


def _nb(*cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    return nb


def _code(outputs=(), tags=()):
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [nbformat.v4.new_output("display_data", {"text/plain": o}) if isinstance(o, str) else o
                    for o in outputs]
    cell.metadata["tags"] = list(tags)
    return cell


def _md(text, tags=()):
    cell = nbformat.v4.new_markdown_cell(text)
    cell.metadata["tags"] = list(tags)
    return cell


def _not_run(reason):
    return nbformat.v4.new_output("display_data", {"text/markdown": f"*Not run: {reason}.*",
                                                   "text/plain": f"Not run: {reason}."},
                                  metadata={"throttlelab": {"role": "not-run"}})


def test_readers_see_no_setup_no_warnings_and_no_empty_section():
    from throttlelab.report.html.html_export import for_readers

    warning = nbformat.v4.new_output("stream", name="stderr", text="TqdmWarning: IProgress not found")
    answer = nbformat.v4.new_output("display_data", {"text/markdown": "> **Answer.**"},
                                    metadata={"throttlelab": {"role": "answer"}})
    cells = [_md("# The question"), _code(tags=["parameters"]), _md("## Setup", tags=["setup"]),
             _code([answer, warning, "imported"], tags=["setup"]),
             _md("## Results"), _code(["a table"]),
             _md("## Active time"), _code([warning]), _code([]),
             _md("## Auto against the best"), _md("Noise per limit.", tags=["method"]), _code([]),
             _md("The method in detail.", tags=["method"]), _code(["a chart"])]
    shown = for_readers(cells)
    sources = [c.source for c in shown if c.cell_type == "markdown"]
    assert sources[:2] == ["# The question", "## Results"] and "## Setup" not in sources
    assert "## Active time" not in sources, "a caption with nothing under it is dropped"
    assert "## Auto against the best" not in sources and "Noise per limit." not in sources, "with its method"
    assert sources[-1].startswith('<details class="tl-method"><summary>Method</summary>')
    outputs = [o for c in shown if c.cell_type == "code" for o in c.outputs]
    assert [o.data["text/plain"] for o in outputs] == ["a table", "a chart"]
    assert cells[3].outputs, "the notebook itself is left as it was"


def test_sections_not_run_become_one_collapsed_line_where_the_first_was():
    from throttlelab.report.html.html_export import for_readers

    cells = [_md("## Published"), _code(["the table"]),
             _md("## Measured (when given)"), _code([_not_run("no measured requests (set `requests_path`)")]),
             _md("The chart of measured requests."), _code([_not_run("no measured requests (set `requests_path`)")]),
             _md("Busy workers."), _code([_not_run("no worker counts")]),
             _md("## Capacity"), _code(["the capacity"])]
    shown = for_readers(cells)
    text = [c.source if c.cell_type == "markdown" else c.outputs[0].data["text/plain"] for c in shown if
            c.cell_type == "markdown" or c.outputs]
    assert text[:2] == ["## Published", "the table"] and text[-2:] == ["## Capacity", "the capacity"]
    [note] = [t for t in text if "tl-not-run" in t]
    assert text.index(note) == 2 and "Not run here: 3 parts of this report" in note
    assert note.count("<li>") == 2 and "<code>requests_path</code>" in note
    assert not any("Measured" in t or "Busy workers" in t for t in text)


def test_a_failed_page_shows_one_line_and_the_traceback_collapsed(tmp_path):
    """The error of a failed cell: one line of at most 200 characters; its traceback only under <details>."""
    import doctest
    import re

    import throttlelab.report.html.html_export as mod

    assert doctest.testmod(mod).failed == 0
    evalue = "data/x.csv: unknown format (none matched); name one with --format. Formats tried:\n  monitor: ..." + "y" * 300
    err = nbformat.v4.new_output("error", ename="InputError", evalue=evalue,
                                 traceback=["\x1b[0;31m---------\x1b[0m", "File lib/x.py:12, in read_any", "InputError: ..."])
    nb = _nb(_md("## Limits"), _code([err]))
    src = tmp_path / "executed.ipynb"
    nbformat.write(nb, str(src))
    error = f"InputError: {evalue}"
    dest = export_html(src, tmp_path / "report.html", header=header_html("T", "failed", error, {}))
    page = dest.read_text()
    shown = re.sub(r"<details class=\"tl-traceback\">.*?</details>", "", page, flags=re.S)
    assert "File lib/x.py:12" not in shown and "File lib/x.py:12" in page and "\x1b" not in page
    lines = re.findall(r'class="tl-status-failed">([^<]*)<', page)
    assert lines and all(len(x) <= 230 and "\n" not in x for x in lines)  # 200 + "This notebook failed: "
    assert "monitor: ..." not in shown
