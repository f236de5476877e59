#!/usr/bin/env python3
"""Build a notebook from a percent-format script (a development aid).

Cells start with ``# %%`` (code), ``# %% [markdown]`` (markdown, lines
prefixed with ``# ``) or ``# %% tags=["parameters"]`` (code cell tagged).
The notebook is written without outputs, with the ``python3`` kernelspec.

    python scripts/py2nb.py /tmp/03_cpu_limits.py notebooks/03_cpu_limits.ipynb
"""

from __future__ import annotations

import json
import re
import sys

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HEADER = re.compile(r"^# %%(?P<md>\s*\[markdown\])?(?:\s*tags=(?P<tags>\[.*\]))?\s*$")


def convert(text: str) -> nbformat.NotebookNode:
    cells, kind, tags, buf = [], None, [], []

    def flush() -> None:
        if kind is None:
            return
        body = "\n".join(buf).strip("\n")
        if kind == "markdown":
            body = "\n".join(re.sub(r"^# ?", "", ln) for ln in body.splitlines())
            cells.append(new_markdown_cell(body))
        else:
            cell = new_code_cell(body)
            if tags:
                cell.metadata["tags"] = tags
            cells.append(cell)

    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            flush()
            kind = "markdown" if m.group("md") else "code"
            tags = json.loads(m.group("tags")) if m.group("tags") else []
            buf = []
        elif kind is not None:
            buf.append(line)
    flush()
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:02d}"
    return nb


if __name__ == "__main__":
    src, dst = sys.argv[1], sys.argv[2]
    nbformat.write(convert(open(src, encoding="utf-8").read()), dst)
