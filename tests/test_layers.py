"""Imports go one way (core -> ingest -> experiment -> analysis -> report), with no cycles, even inside functions.

Below every layer sit the domain core (``core/``: imports no layer) and ``tables``, ``results``, ``errors``; every
layer may import them.  Nothing is imported by a name in a string (``import_module``, ``__import__``), so this test
sees every import; and the subpackages of a layer import each other one way only.

Concept packages are entered through their faces.
"""

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PKG = REPO / "lib" / "throttlelab"
RANK = {"core": 0, "stats": 0, "tables": 0, "errors": 0, "results": 0, "result_tables": 0, "results_file": 0, "config_file": 0, "units": 0, "input_log": 0,
        "ingest": 1, "experiment": 2, "analysis": 3, "report": 4, "cli": 5, "__main__": 5}
# What the analysis layer may import from the experiment layer: its public readers only.
ANALYSIS_MAY_IMPORT = {"throttlelab.experiment.stores"}


def modules() -> dict[str, Path]:
    out = {}
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG.parent).with_suffix("")
        parts = rel.parts[:-1] if rel.parts[-1] == "__init__" else rel.parts
        out[".".join(parts)] = path
    return out


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The absolute module a ``from ... import`` names, relative imports resolved against ``package``."""
    base = node.module or ""
    if node.level:
        anchor = package.split(".")
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join(anchor + ([base] if base else []))
    return base


def imports_of(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, int]]:
    """Every throttlelab module ``name`` imports (at any depth of the file), resolved, with its line."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in runtime_nodes(ast.parse(path.read_text())):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in known else base)
        for t in targets:
            if t.startswith("throttlelab") and t in known:
                out.append((t, node.lineno))
    return out


def runtime_nodes(tree: ast.AST):
    """Every node, at any depth (imports inside functions too), except under ``if TYPE_CHECKING:``."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                todo.extend(child.orelse)
                continue
            todo.append(child)


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def graph() -> dict[str, list[tuple[str, int]]]:
    known = modules()
    return {name: imports_of(name, path, known) for name, path in known.items()}


def test_imports_go_one_way():
    bad = []
    for name, targets in graph().items():
        own = layer_of(name)
        if own not in RANK:
            continue
        for target, line in targets:
            t = layer_of(target)
            if t in RANK and RANK[t] > RANK[own]:
                bad.append(f"{name}:{line} ({own}) imports {target} ({t})")
            if own == "analysis" and t == "experiment" and target not in ANALYSIS_MAY_IMPORT:
                bad.append(f"{name}:{line} imports experiment internals ({target}); use throttlelab.experiment.stores")
    assert not bad, "\n".join(bad)


def find_cycles(edges: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), or a module importing itself."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in edges.get(v, []):
                out.append(sorted(comp))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def test_the_core_imports_no_layer():
    bad = [f"{name}:{line} imports {target}" for name, targets in graph().items() if layer_of(name) == "core"
           for target, line in targets if RANK.get(layer_of(target), 0) > 0]
    assert bad == []


def test_the_shared_statistics_import_no_layer():
    """``stats/`` (the knee, the dead-zone rule, the noise prior) sits below the experiment and analysis layers."""
    bad = [f"{name}:{line} imports {target}" for name, targets in graph().items() if layer_of(name) == "stats"
           for target, line in targets if RANK.get(layer_of(target), 0) > 0]
    assert bad == [] and any(layer_of(name) == "stats" for name in graph())


def string_imports(path: Path) -> list[int]:
    """Lines of ``path`` that import a module by a name given at run time (``import_module``, ``__import__``)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in ("import_module", "__import__"):
                out.append(node.lineno)
    return out


def test_nothing_is_imported_by_a_name_in_a_string():
    bad = [f"{path.relative_to(PKG.parent)}:{line}" for path in sorted(PKG.rglob("*.py")) for line in string_imports(path)]
    assert bad == [], "import the module with an import statement (inside a function to keep it lazy)"


def test_the_string_import_finder_finds_them(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("import importlib\nm = importlib.import_module('x.y')\nn = __import__('scipy')\n"
                 "from importlib import import_module\nk = import_module(name)\nimport importlib.metadata\n")
    assert string_imports(p) == [2, 3, 5]


def subpackage_of(module: str) -> str | None:
    """``throttlelab.experiment.sweeps.plan`` -> ``throttlelab.experiment.sweeps``; a layer's own modules
    (``throttlelab.experiment.registry``) are units of their own; ``None`` outside the layers."""
    parts = module.split(".")
    if len(parts) < 3 or parts[1] not in RANK or RANK[parts[1]] == 0:
        return None
    return ".".join(parts[:3])


def both_ways(edges: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} <-> {b}" for a in edges for b in edges[a] if a < b and a in edges.get(b, set()))


def test_the_subpackages_of_a_layer_import_each_other_one_way():
    edges: dict[str, set[str]] = {}
    where: dict[tuple[str, str], str] = {}
    for name, targets in graph().items():
        a = subpackage_of(name)
        for target, line in targets:
            b = subpackage_of(target)
            if a and b and a != b and layer_of(a) == layer_of(b):
                edges.setdefault(a, set()).add(b)
                where.setdefault((a, b), f"{name}:{line}")
    bad = both_ways(edges)
    assert bad == [], "; ".join(f"{p} ({where[tuple(p.split(' <-> '))]} and {where[tuple(reversed(p.split(' <-> ')))]})"
                                for p in bad)


def test_both_ways_finds_a_pair():
    assert both_ways({"a": {"b"}, "b": {"a", "c"}, "c": set()}) == ["a <-> b"]


def test_no_import_cycles():
    g = graph()
    # a package's __init__ importing its own modules is how packages expose names, not a cycle
    edges = {m: [t for t, _ in ts if not t.startswith(m + ".") and t != m] for m, ts in g.items()}
    assert find_cycles(edges) == []


def test_cycle_finder_finds_cycles():
    assert find_cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert find_cycles({"a": ["b"], "b": []}) == []


# --- faces -------------------------------------------------------------------------------------------------------

#: Layers organised into concept packages: from outside, only their faces are imported.
CONCEPT_LAYERS = ("throttlelab.analysis", "throttlelab.ingest", "throttlelab.report")
#: Modules at the top of such a layer (``__init__.py``, the layer's face, not counted).
MAX_TOP_MODULES = 12


def faces() -> dict[str, set[str]]:
    """Package -> the names its ``__init__`` lists in ``__all__`` (packages with a face only)."""
    out = {}
    for name, path in modules().items():
        if path.name != "__init__.py":
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                out[name] = set(ast.literal_eval(node.value))
    return out


def import_sites(path: Path, package: str, known: dict[str, Path],
                 faced: dict[str, set[str]]) -> list[tuple[str, list[str], int]]:
    """(module, names imported from it, line) of every throttlelab import in ``path``, inside functions too.

    ``from a.b import c`` gives ``("a.b", ["c"], line)`` when ``a.b``'s face lists ``c`` (a function may share its
    module's name), else ``("a.b.c", [], line)`` when ``a.b.c`` is a module.
    """
    out = []
    for node in runtime_nodes(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(a.name, [], node.lineno) for a in node.names if a.name.startswith("throttlelab")]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            if not base.startswith("throttlelab"):
                continue
            names = []
            for alias in node.names:
                if f"{base}.{alias.name}" in known and alias.name not in faced.get(base, ()):
                    out.append((f"{base}.{alias.name}", [], node.lineno))
                else:
                    names.append(alias.name)
            if names:
                out.append((base, names, node.lineno))
    return out


def within(module: str | None, package: str) -> bool:
    return module is not None and (module == package or module.startswith(package + "."))


def face_problems(importer: str | None, where: str, sites, known: dict[str, Path], faced: dict[str, set[str]]):
    """What an import of ``importer`` (a module name, or None for a script) does against the faces."""
    bad = []
    for target, names, line in sites:
        at = f"{where}:{line} imports {target}"
        if importer in ("throttlelab.cli", "throttlelab.__main__") and target.endswith("_cli"):
            continue  # the command modules are the command line's faces of their packages
        around = [p for p in faced if target.startswith(p + ".")]
        if target not in faced and around:
            package = max(around, key=len)  # the innermost face around the module
            if not within(importer, package):
                bad.append(f"{at}: past the face of {package}")
        for layer in CONCEPT_LAYERS:
            top = target.rpartition(".")[0] == layer and known[target].name != "__init__.py"
            if top and layer not in faced and not within(importer, layer):
                bad.append(f"{at}: a module at the top of {layer}; import a face")
        listed = faced.get(target)
        if listed is not None and not within(importer, target):
            bad += [f"{at}: {n} is not in its face's __all__" for n in names if n not in listed]
    return bad


def entry_points() -> list[tuple[str | None, Path]]:
    """What must import faces only: the notebooks, the benchmarks and the command-line modules."""
    known = modules()
    scripts = [(None, p) for p in sorted([*(REPO / "notebooks").glob("[0-9][0-9]_*.py"), *(REPO / "bench").glob("*.py")])]
    clis = [(n, p) for n, p in sorted(known.items()) if p.name == "cli.py" or p.name.endswith("_cli.py")]
    return scripts + clis


def test_notebooks_bench_and_cli_import_only_faces():
    known, faced = modules(), faces()
    bad = []
    for name, path in entry_points():
        package = (name or "").rpartition(".")[0]
        sites = import_sites(path, package, known, faced)
        bad += face_problems(name, str(path.relative_to(REPO)), sites, known, faced)
    assert not bad, "\n".join(bad)


def test_entry_points_cover_every_notebook_and_command():
    points = {p.name for _, p in entry_points()}
    assert {"03_cpu_limits.py", "bench_stats.py", "cli.py", "ingest_cli.py", "recommend_cli.py"} <= points
    assert {"analysis", "ingest"} <= {p.split(".")[1] for p in faces()}, "the concept layers have faces"


def test_the_face_check_finds_imports_past_a_face():
    known = {"throttlelab.analysis": PKG / "analysis/__init__.py",
             "throttlelab.analysis.limits": PKG / "analysis/limits/__init__.py",
             "throttlelab.analysis.limits.cpu_limits": PKG / "analysis/limits/cpu_limits.py",
             "throttlelab.analysis.loose": PKG / "analysis/loose.py"}
    faced = {"throttlelab.analysis.limits": {"analyse_cpu_limits"}}
    sites = [("throttlelab.analysis.limits.cpu_limits", [], 1), ("throttlelab.analysis.limits", ["hidden"], 2),
             ("throttlelab.analysis.loose", [], 3), ("throttlelab.analysis.limits", ["analyse_cpu_limits"], 4)]
    bad = face_problems(None, "nb.py", sites, known, faced)
    assert [b.split(" imports")[0] for b in bad] == ["nb.py:1", "nb.py:2", "nb.py:3"]
    assert face_problems("throttlelab.analysis.limits.x", "m.py", sites[:2], known, faced) == []


def test_concept_layers_keep_few_modules_at_their_top():
    """At most 12 modules directly in ``analysis/``, ``ingest/`` and ``report/``; the layer's ``__init__`` is not counted."""
    for layer in CONCEPT_LAYERS:
        folder = PKG / layer.split(".")[1]
        top = sorted(p.name for p in folder.glob("*.py") if p.name != "__init__.py")
        assert len(top) <= MAX_TOP_MODULES, f"{layer}: {len(top)} modules at the top: {top}"


def test_the_command_line_parser_imports_nothing_heavy():
    """``throttlelab --help`` builds every subcommand's parser (the ingest face included) without polars, numpy or
    rich (the recommend table's, loaded when it prints), and without the ingest result types, which the face loads on first use."""
    code = ("import sys; from throttlelab.cli import build_parser; build_parser(); "
            "print(' '.join(sorted({m.split('.')[0] for m in sys.modules} & {'polars', 'numpy', 'scipy', 'pyarrow', "
            "'altair', 'pandas', 'rich'} | {m for m in sys.modules if m == 'throttlelab.ingest.result'})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == ""


def test_the_ingest_face_loads_its_result_types_on_first_use():
    import throttlelab.ingest as face
    from throttlelab.ingest.result import IngestResult, SkipReport

    assert (face.IngestResult, face.SkipReport) == (IngestResult, SkipReport)
    assert set(face.__all__) >= {"IngestResult", "SkipReport", "read_any", "detect_format"}
    try:
        face.no_such_name
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown name must raise AttributeError")


# --- report faces --------------------------------------------------------------------------------------------------

#: The report layer's concept packages: each has a face, and so has the layer (its modules at the top: the notebook
#: helpers, the results schema and the command modules).
REPORT_PACKAGES = ("answers", "charts", "html", "recommend", "study")


def test_the_report_layer_and_each_of_its_packages_have_a_face():
    faced = faces()
    report = {m for m, p in modules().items() if p.name == "__init__.py" and within(m, "throttlelab.report")}
    assert report == {"throttlelab.report", *(f"throttlelab.report.{p}" for p in REPORT_PACKAGES)}
    assert report <= set(faced), f"no __all__: {sorted(report - set(faced))}"


def test_every_name_a_report_face_lists_is_there():
    """A face's ``__all__`` names what it gives, the report layer's own face (which loads on first use) included."""
    import importlib

    missing = []
    for package, names in sorted(faces().items()):
        if within(package, "throttlelab.report"):
            face = importlib.import_module(package)
            missing += [f"{package}.{n}" for n in sorted(names) if not hasattr(face, n)]
    assert missing == []


def test_the_face_check_finds_report_imports_past_a_face(tmp_path):
    """The layer's face lists ``notebook`` (a module: notebooks import it as ``tn``); anything else at the top of
    ``report/`` and any module inside a report package is past a face."""
    known = {"throttlelab.report": PKG / "report/__init__.py",
             "throttlelab.report.notebook": PKG / "report/notebook.py",
             "throttlelab.report.results_schema": PKG / "report/results_schema.py",
             "throttlelab.report.charts": PKG / "report/charts/__init__.py",
             "throttlelab.report.charts.scaling_charts": PKG / "report/charts/scaling_charts.py",
             "throttlelab.report.answers": PKG / "report/answers/__init__.py",
             "throttlelab.report.answers.sweep_answer": PKG / "report/answers/sweep_answer.py"}
    faced = {"throttlelab.report": {"notebook", "json_schema"}, "throttlelab.report.charts": {"scaling_chart"},
             "throttlelab.report.answers": {"sweep_answer"}}
    tree = ("from throttlelab.report.charts.scaling_charts import scaling_chart\n"  # 1: past the charts face
            "from throttlelab.report import results_schema\n"  # 2: a module at the top, not in the face
            "from throttlelab.report.answers.sweep_answer import sweep_answer\n"  # 3: past the answers face
            "from throttlelab.report.charts import hidden\n"  # 4: not in the face's __all__
            "from throttlelab.report import notebook as tn\n"  # fine: the face lists it
            "from throttlelab.report import charts, json_schema\n"  # fine: a face, a listed name
            "from throttlelab.report.answers import sweep_answer\n"  # fine
            "from throttlelab.report.charts import scaling_chart\n")  # fine
    path = tmp_path / "nb.py"
    path.write_text(tree)
    sites = sorted(import_sites(path, "", known, faced), key=lambda site: site[2])
    bad = face_problems(None, "nb.py", sites, known, faced)
    assert sorted(b.split(" imports")[0] for b in bad) == ["nb.py:1", "nb.py:2", "nb.py:3", "nb.py:4"]
    assert face_problems("throttlelab.report.charts.style", "m.py", sites[:1], known, faced) == []


def test_scripts_import_report_faces_only():
    """``scripts/*.py`` import the report layer through its faces (their other imports are not checked here)."""
    known, faced = modules(), faces()
    bad = []
    for path in sorted((REPO / "scripts").glob("*.py")):
        sites = [s for s in import_sites(path, "", known, faced) if within(s[0], "throttlelab.report")]
        bad += face_problems(None, str(path.relative_to(REPO)), sites, known, faced)
    assert not bad, "\n".join(bad)


# --- the experiment layer's faces ----------------------------------------------------------------------------------

#: The experiment layer's concept packages: each has a face, and notebooks, benchmarks, scripts and command modules
#: import their names through it (``from throttlelab.experiment.sweeps import run_sweep``).
EXPERIMENT_FACES = ("throttlelab.experiment.sweeps", "throttlelab.experiment.sweeps.adaptive",
                    "throttlelab.experiment.local_cgroup", "throttlelab.experiment.simulation",
                    "throttlelab.experiment.latency", "throttlelab.experiment.latency.service",
                    "throttlelab.experiment.kubernetes")


def test_the_experiment_packages_have_faces():
    assert set(EXPERIMENT_FACES) <= set(faces())


def experiment_face_problems(paths: list[Path]) -> list[str]:
    """What the scripts ``paths`` import from the experiment layer past a face."""
    known, faced = modules(), faces()
    bad = []
    for path in paths:
        sites = [s for s in import_sites(path, "", known, faced) if within(s[0], "throttlelab.experiment")]
        bad += face_problems(None, str(path.relative_to(REPO)), sites, known, faced)
    return bad


def test_scripts_import_experiment_names_through_faces():
    """``scripts/*.py`` enter the experiment layer as the notebooks, benchmarks and command modules do."""
    scripts = sorted((REPO / "scripts").glob("*.py"))
    assert scripts and not experiment_face_problems(scripts), "\n".join(experiment_face_problems(scripts))


def test_the_experiment_face_check_finds_an_import_past_a_face(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("from throttlelab.experiment.sweeps.run_sweep import run_sweep\n"
                      "from throttlelab.experiment.latency import load_measured\n"
                      "def f():\n    from throttlelab.experiment.simulation.synthetic_cluster import cluster\n")
    known, faced = modules(), faces()
    bad = face_problems(None, "s.py", import_sites(script, "", known, faced), known, faced)
    assert sorted(b.split(" imports")[0] for b in bad) == ["s.py:1", "s.py:4"]

# --- subpackages ---------------------------------------------------------------------------------------------------

#: Imports that still close a cycle between the experiment layer's subpackages (each a module edge). The load
#: generator sits in ``latency/`` but the backends use it, and the sweep spec names the Kubernetes options.
KNOWN_BACK_EDGES: set[tuple[str, str]] = set()  # none left: the experiment subpackages import one way


def child_of(package: str, module: str) -> str | None:
    """The direct child of ``package`` (a module or a subpackage) that ``module`` lies in, if any."""
    if not module.startswith(package + "."):
        return None
    return f"{package}.{module[len(package) + 1:].split('.')[0]}"


def package_cycles(g: dict[str, list[tuple[str, int]]], skip=frozenset()) -> dict[str, list[list[str]]]:
    """Package -> cycles among its direct children (modules and subpackages, each taken whole)."""
    packages = {m for m, p in modules().items() if p.name == "__init__.py"}
    out = {}
    for package in sorted(packages):
        edges: dict[str, set[str]] = {}
        for m, targets in g.items():
            a = child_of(package, m)
            for t, _ in targets:
                b = child_of(package, t)
                if a and b and a != b and (m, t) not in skip:
                    edges.setdefault(a, set()).add(b)
        cycles = find_cycles({a: sorted(bs) for a, bs in edges.items()})
        if cycles:
            out[package] = cycles
    return out


def test_subpackages_import_one_way():
    """Within every package, its modules and subpackages import one way (``ingest.monitor`` never imports a
    module that imports ``ingest.monitor``), apart from the known experiment edges, which must still exist."""
    g = graph()
    assert package_cycles(g, skip=KNOWN_BACK_EDGES) == {}
    edges = {(m, t) for m, ts in g.items() for t, _ in ts}
    stale = sorted(KNOWN_BACK_EDGES - edges)
    assert not stale, f"no longer imported, remove from KNOWN_BACK_EDGES: {stale}"


def test_the_subpackage_check_finds_a_cycle():
    g = {"throttlelab.ingest.monitor.monitor_log": [("throttlelab.ingest.k6.k6", 1)],
         "throttlelab.ingest.k6.k6": [("throttlelab.ingest.monitor.monitor_format", 2)]}
    assert package_cycles(g) == {"throttlelab.ingest": [["throttlelab.ingest.k6", "throttlelab.ingest.monitor"]]}
    assert package_cycles(g, skip={("throttlelab.ingest.k6.k6", "throttlelab.ingest.monitor.monitor_format")}) == {}
