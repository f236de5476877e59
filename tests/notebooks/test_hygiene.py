"""Every notebook: committed without outputs, a tagged parameters cell with output_dir."""

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_outputs_committed(path):
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert not cell.get("outputs"), f"{path.name}: outputs committed"
            assert not cell.get("execution_count"), f"{path.name}: execution counts committed"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_parameters_cell(path):
    import papermill as pm

    nb = json.loads(path.read_text())
    tagged = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{path.name}: exactly one cell tagged 'parameters'"
    params = pm.inspect_notebook(str(path))
    assert "output_dir" in params, f"{path.name}: output_dir parameter"
    assert nb["cells"][0]["cell_type"] == "markdown", f"{path.name}: starts with a markdown cell saying what it answers"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_papermill_sees_every_parameter(path):
    """papermill cannot parse a parameter line with two '=' (e.g. in its comment): it would be
    missing from --help-notebook and every injection would warn 'unknown parameter'."""
    import ast

    import papermill as pm

    nb = json.loads(path.read_text())
    cell = next(c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", []))
    src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
    assigned = [n.target.id for n in ast.parse(src).body if isinstance(n, ast.AnnAssign)]
    assigned += [t.id for n in ast.parse(src).body if isinstance(n, ast.Assign) for t in n.targets]
    seen = set(pm.inspect_notebook(str(path)))
    assert [a for a in assigned if a not in seen] == [], f"{path.name}: no '=' in parameter comments"


def _chart_calls(src: str) -> bool:
    """Does this code draw a chart (a call into throttlelab.report.charts or altair)?"""
    lines = [ln for ln in src.splitlines() if not ln.lstrip().startswith(("import ", "from ", "#"))]
    return any(re.search(r"\bcharts\.\w+(\.\w+)*\(|\balt\.Chart\(", ln) for ln in lines)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_chart_has_a_caption(path):
    """A markdown cell (what the chart shows, how to read it) precedes every cell that draws a chart."""
    nb = json.loads(path.read_text())
    prev = None
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and _chart_calls(src):
            assert prev is not None and prev["cell_type"] == "markdown", f"{path.name}: chart cell without a caption:\n{src[:200]}"
        prev = cell
