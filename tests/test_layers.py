"""Imports go one way (ingest -> experiment -> analysis -> report), with no cycles, even inside functions."""

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "lib" / "throttlelab"
RANK = {"tables": 0, "errors": 0, "results": 0, "result_tables": 0, "config_file": 0, "input_log": 0, "ingest": 1, "experiment": 2, "analysis": 3,
        "report": 4, "cli": 5, "__main__": 5}
# What the analysis layer may import from the experiment layer: its public readers only.
ANALYSIS_MAY_IMPORT = {"throttlelab.experiment.stores"}


def modules() -> dict[str, Path]:
    out = {}
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG.parent).with_suffix("")
        parts = rel.parts[:-1] if rel.parts[-1] == "__init__" else rel.parts
        out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, int]]:
    """Every throttlelab module ``name`` imports (at any depth of the file), resolved, with its line."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in runtime_nodes(ast.parse(path.read_text())):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
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


def test_no_import_cycles():
    g = graph()
    # a package's __init__ importing its own modules is how packages expose names, not a cycle
    edges = {m: [t for t, _ in ts if not t.startswith(m + ".") and t != m] for m, ts in g.items()}
    assert find_cycles(edges) == []


def test_cycle_finder_finds_cycles():
    assert find_cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert find_cycles({"a": ["b"], "b": []}) == []
