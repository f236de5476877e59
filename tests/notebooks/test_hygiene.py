"""Every notebook: committed without outputs, a tagged parameters cell with output_dir."""

import ast
import json
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


def chart_functions(cells) -> tuple[set[str], set[str]]:
    """Names imported from ``throttlelab.report.charts`` modules, and module aliases of them."""
    names, modules = set(), {"alt"}
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        for node in ast.walk(ast.parse(_source(cell))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("throttlelab.report.charts"):
                for a in node.names:
                    (modules if node.module == "throttlelab.report.charts" else names).add(a.asname or a.name)
    return names, modules


def draws_chart(src: str, names: set[str], modules: set[str]) -> bool:
    """Does this code call a chart builder (or ``alt.Chart``)?"""
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in names:
                return True
            while isinstance(f, ast.Attribute):
                if isinstance(f.value, ast.Name) and f.value.id in modules:
                    return True
                f = f.value
    return False


def uncaptioned_charts(cells) -> list[str]:
    names, modules = chart_functions(cells)
    bad, prev = [], None
    for cell in cells:
        if cell["cell_type"] == "code" and not _imports_only(cell) and draws_chart(_source(cell), names, modules):
            if prev is None or prev["cell_type"] != "markdown":
                bad.append(_source(cell)[:200])
        prev = cell
    return bad


def _source(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _imports_only(cell) -> bool:
    return all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.parse(_source(cell)).body)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_chart_has_a_caption(path):
    """A markdown cell (what the chart shows, how to read it) precedes every cell that draws a chart."""
    assert uncaptioned_charts(json.loads(path.read_text())["cells"]) == []


def test_caption_check_finds_a_bare_chart():
    code = lambda s: {"cell_type": "code", "source": s}
    md = {"cell_type": "markdown", "source": "How to read it"}
    imports = code("from throttlelab.report.charts.scaling_charts import scaling_chart\n"
                   "from throttlelab.report.charts import latency_charts as charts")
    assert uncaptioned_charts([imports, code("scaling_chart(df)")]) == ["scaling_chart(df)"]
    assert uncaptioned_charts([imports, code("x = 1\ncharts.latency_ecdf(df).show()")]) != []
    assert uncaptioned_charts([imports, md, code("scaling_chart(df)"), md, code("charts.latency_ecdf(df)")]) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_each_notebook_is_paired_with_its_percent_script(path):
    """notebooks/NN_x.py (the reviewed source) and NN_x.ipynb hold the same cells (`make notebooks` syncs them)."""
    import jupytext

    script = path.with_suffix(".py")
    assert script.exists(), f"{path.name}: no paired percent script"
    from_py, from_nb = jupytext.read(script), jupytext.read(path)
    cells = lambda nb: [(c.cell_type, c.source.strip(), tuple(c.metadata.get("tags", []))) for c in nb.cells]
    assert cells(from_py) == cells(from_nb), f"{path.name} and {script.name} differ: run make notebooks"
