"""Tests of throttlelab.report.html_export: the escaped header and the code-free HTML report."""

from __future__ import annotations

import nbformat

from throttlelab.report.html_export import export_html, header_html, header_title


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
