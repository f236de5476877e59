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
    """Names imported from ``throttlelab.report.charts`` (its face or its modules), and aliases of the package or of
    its modules."""
    names, modules = set(), {"alt"}
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        for node in ast.walk(ast.parse(_source(cell))):
            if isinstance(node, ast.ImportFrom) and node.module == "throttlelab.report":
                modules |= {a.asname or a.name for a in node.names if a.name == "charts"}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("throttlelab.report.charts"):
                for a in node.names:
                    module = node.module == "throttlelab.report.charts" and a.name.endswith("_charts")
                    (modules if module else names).add(a.asname or a.name)
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
    faces = code("from throttlelab.report.charts import monitor_panels\nfrom throttlelab.report import charts as c")
    assert uncaptioned_charts([faces, code("display(monitor_panels(df))")]) == ["display(monitor_panels(df))"]
    assert uncaptioned_charts([faces, code("c.stage_bars(df)")]) == ["c.stage_bars(df)"]
    assert uncaptioned_charts([faces, md, code("display(monitor_panels(df))"), md, code("c.stage_bars(df)")]) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_each_notebook_is_paired_with_its_percent_script(path):
    """notebooks/NN_x.py (the reviewed source) and NN_x.ipynb hold the same cells (`make notebooks` syncs them)."""
    import jupytext

    script = path.with_suffix(".py")
    assert script.exists(), f"{path.name}: no paired percent script"
    from_py, from_nb = jupytext.read(script), jupytext.read(path)
    cells = lambda nb: [(c.cell_type, c.source.strip(), tuple(c.metadata.get("tags", []))) for c in nb.cells]
    assert cells(from_py) == cells(from_nb), f"{path.name} and {script.name} differ: run make notebooks"


#: JupyterLab at 1280x800 (file browser open): where the notebook's first cell starts, and the layout of cells
#: above the answer. Calibrated on the executed notebooks in headless Chromium, where the answer box started at
#: 441-562 px for notebooks 01-07 (papermill's injected parameters cell included, about 75 px).
LAB_TOP_PX, H1_CHARS, H1_LINE_PX, TEXT_CHARS, TEXT_LINE_PX = 100, 50, 44, 110, 22
CODE_LINE_PX, CELL_PAD_PX, HIDDEN_CODE_PX = 18, 30, 40
#: The answer box must start here or higher, so that its lead (2-3 lines) is on the first screen of 800 px.
ANSWER_TOP_BUDGET_PX = 600


def answer_top_px(cells) -> int | None:
    """Estimated top of the answer box in JupyterLab after Run All: the cells above the setup cell that shows it
    (the title, the parameters), then the setup cell, its code collapsed. None when no setup cell shows it."""
    y = LAB_TOP_PX
    for cell in cells:
        src = _source(cell)
        if cell["cell_type"] == "markdown":
            for line in src.splitlines():
                heading = line.startswith("# ")
                chars, px = (H1_CHARS, H1_LINE_PX) if heading else (TEXT_CHARS, TEXT_LINE_PX)
                y += px * max(1, -(-len(line.lstrip("# ")) // chars)) if line.strip() else TEXT_LINE_PX // 2
            y += CELL_PAD_PX
        elif "tn.start(" in src:
            hidden = (cell.get("metadata", {}).get("jupyter") or {}).get("source_hidden")
            return y + (HIDDEN_CODE_PX if hidden else CODE_LINE_PX * len(src.splitlines()) + CELL_PAD_PX)
        else:
            y += CODE_LINE_PX * len(src.splitlines()) + CELL_PAD_PX
    return None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_answer_is_on_the_first_screen(path):
    """Right under the parameters, the setup cell (its code collapsed) shows the answer box (tn.start; updated in
    place when the notebook has run): only the title and the parameters are above it, within the first screen.
    The executed notebooks' tests check that this box is the first output and holds answer.json's lead."""
    import jupytext

    cells = json.loads(path.read_text())["cells"]
    i = next(i for i, c in enumerate(cells) if "parameters" in c.get("metadata", {}).get("tags", []))
    setup = cells[i + 1]
    assert setup["cell_type"] == "code" and "tn.start(" in _source(setup), f"{path.name}: the setup right after the parameters"
    assert [c["cell_type"] for c in cells[:i]] == ["markdown"], f"{path.name}: only the title above the parameters"
    assert setup["metadata"].get("jupyter", {}).get("source_hidden"), f"{path.name}: setup code collapsed"
    script = jupytext.read(path.with_suffix(".py"))  # kept in the paired script, so opening the .py shows it too
    assert next(c for c in script.cells if "tn.start(" in c.source).metadata.get("jupyter", {}).get("source_hidden")
    top = answer_top_px(cells)
    assert top is not None and top <= ANSWER_TOP_BUDGET_PX, f"{path.name}: the answer starts at about {top} px"


def test_a_long_title_or_open_setup_pushes_the_answer_off_the_first_screen():
    md = lambda s: {"cell_type": "markdown", "source": s, "metadata": {}}
    code = lambda s, **meta: {"cell_type": "code", "source": s, "metadata": meta}
    params = code("\n".join(f"p{i} = {i}" for i in range(12)), tags=["parameters"])
    setup = "\n".join(["import x"] * 18 + ["out = tn.start(output_dir)"])
    short = [md("# A question?"), params, code(setup, jupyter={"source_hidden": True})]
    assert answer_top_px(short) <= ANSWER_TOP_BUDGET_PX
    assert answer_top_px([md("# A question?"), params, code(setup)]) > ANSWER_TOP_BUDGET_PX
    long_title = md("# A question?\n\n" + "\n".join(["word " * 22] * 12))
    assert answer_top_px([long_title, params, code(setup, jupyter={"source_hidden": True})]) > ANSWER_TOP_BUDGET_PX
