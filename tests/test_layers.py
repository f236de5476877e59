"""Layers import in one direction only: ingest -> experiment -> analysis -> report."""

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "lib" / "throttlelab"
RANK = {"tables": 0, "errors": 0, "results": 0, "ingest": 1, "experiment": 2, "analysis": 3, "report": 4, "cli": 5, "__main__": 5}


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "throttlelab" or len(parts) < 2:
        return None
    return parts[1]


def test_imports_go_one_way():
    bad = []
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG.parent).with_suffix("")
        own = layer_of(".".join(rel.parts))
        if own not in RANK:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                target = layer_of(name)
                if target in RANK and RANK[target] > RANK[own]:
                    bad.append(f"{path.relative_to(PKG)}:{node.lineno} ({own}) imports {name} ({target})")
    assert not bad, "\n".join(bad)
