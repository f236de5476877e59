"""The house rules for modules: unique file names, a one-line docstring each, a test file each, declared imports."""

import ast
import re
import sys
import tomllib
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PKG = REPO / "lib" / "throttlelab"
SOURCES = sorted(p for p in PKG.rglob("*.py") if p.name not in ("__init__.py", "__main__.py"))


def test_no_two_modules_share_a_file_name():
    counts = Counter(p.name for p in SOURCES)
    assert [n for n, c in counts.items() if c > 1] == []


@pytest.mark.parametrize("path", sorted(PKG.rglob("*.py")), ids=lambda p: str(p.relative_to(PKG)))
def test_every_module_says_its_job_in_one_line(path):
    doc = ast.get_docstring(ast.parse(path.read_text()))
    assert doc, f"{path.relative_to(REPO)} has no docstring"
    first = doc.splitlines()[0]
    assert first.endswith((".", ":")) and len(first) <= 120, f"{path.relative_to(REPO)}: first line {first!r}"


def mirrored_test(path: Path) -> Path:
    rel = path.relative_to(PKG)
    return REPO / "tests" / rel.parent / f"test_{rel.stem}.py"


def test_tests_mirror_lib():
    """Each module ``lib/throttlelab/x/y.py`` has ``tests/x/test_y.py`` (no exceptions)."""
    missing = sorted(str(p.relative_to(PKG)) for p in SOURCES if not mirrored_test(p).exists())
    assert missing == [], "modules without a mirrored test file"


def declared() -> set[str]:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    reqs = meta["dependencies"] + [r for extra in meta.get("optional-dependencies", {}).values() for r in extra]
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower().replace("_", "-") for r in reqs}


# import name -> distribution name, where they differ
DISTRIBUTION = {"yaml": "pyyaml", "websocket": "websocket-client", "vl_convert": "vl-convert-python",
                "imageio_ffmpeg": "imageio-ffmpeg", "great_tables": "great-tables", "playwright": "playwright",
                "zstandard": "zstandard"}


def imported_top_levels(root: Path) -> dict[str, str]:
    out = {}
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            for n in names:
                out.setdefault(n.split(".")[0], f"{path.relative_to(REPO)}:{node.lineno}")
    return out


def test_every_imported_package_is_declared():
    stdlib = set(sys.stdlib_module_names) | {"throttlelab", "__future__"}
    deps = declared()
    undeclared = [f"{name} ({where})" for name, where in sorted(imported_top_levels(PKG).items())
                  if name not in stdlib and DISTRIBUTION.get(name, name).lower().replace("_", "-") not in deps]
    assert undeclared == []


def test_the_package_ships_type_information():
    assert (PKG / "py.typed").exists()


def test_the_test_run_runs_every_docstring_example():
    """``make test`` (plain ``pytest``) collects the docstring examples of lib/, and none is skipped."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "--doctest-modules" in config["addopts"].split() and "lib" in config["testpaths"]
    skipped = [f"{p.relative_to(REPO)}:{n}" for p in SOURCES for n, line in enumerate(p.read_text().splitlines(), 1)
               if re.search(r"doctest:.*\+SKIP", line)]
    assert skipped == []
    examples = [p for p in SOURCES if ">>> " in p.read_text()]
    assert len(examples) >= 35
