#!/usr/bin/env python3
"""Regenerate the generated sections of the docs pages (between ``<!-- NAME:begin -->`` and ``<!-- NAME:end -->``).

* ``docs/tables.md``: the canonical tables, from ``throttlelab.tables``;
* ``docs/reports-and-notebooks.md``: the notebooks list, from each notebook's title (its first markdown heading);
* ``docs/configuration.md``: the configuration reference, from the pydantic models of each configuration file.

    .venv/bin/python scripts/readme_tables.py          # rewrite the pages
    .venv/bin/python scripts/readme_tables.py --check  # exit 1 if any is out of date (names it)

tests/test_readme.py runs the check, so the docs cannot drift; ``make docs`` runs the rewrite before building.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from throttlelab import tables

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"


def tables_section() -> str:
    parts = [""]
    for name in tables.TABLES:
        parts += [f"#### `{name}`", "", tables.describe(name), ""]
    parts += ["#### response metrics (`runs` columns an analysis can take as `metric`)", "",
              "| metric | unit | direction | in words |", "|---|---|---|---|"]
    parts += [f"| `{m.name}` | {m.unit} | {m.direction} | {m.label} |" for m in tables.RESPONSE_METRICS.values()]
    return "\n".join([*parts, ""])


def notebooks_section() -> str:
    rows = ["", "| notebook (`notebooks/NAME.ipynb`, paired with `NAME.py`) | question |", "|---|---|"]
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        md = "".join(cells[0]["source"]) if cells and cells[0]["cell_type"] == "markdown" else ""
        title = next((ln.lstrip("# ").strip() for ln in md.splitlines() if ln.startswith("#")), path.stem)
        number = path.stem.split("_", 1)[0]
        title = title if title.startswith(number) else f"{number} · {title}"  # titles carry no number (reports)
        rows.append(f"| `{path.stem}` | {title.replace('|', '/')} |")
    return "\n".join(rows) + "\n"


def config_section() -> str:
    from throttlelab.config_file import reference_markdown
    from throttlelab.experiment.latency import LatencySweepFile
    from throttlelab.experiment.sweeps import WORKLOAD_OPTIONS, SweepSpec
    from throttlelab.report.study import StudyFile

    # the sweep spec's table keeps the title the README has always given it (the keys of a spec file)
    return "\n" + "\n".join([reference_markdown(StudyFile), reference_markdown(SweepSpec, title="SweepSpecFile"),
                              *(reference_markdown(m) for m in WORKLOAD_OPTIONS.values() if m.model_fields),
                              reference_markdown(LatencySweepFile)])


# section name -> (page it lives in, generator)
SECTIONS = {
    "tables": (DOCS / "tables.md", tables_section),
    "notebooks": (DOCS / "reports-and-notebooks.md", notebooks_section),
    "config": (DOCS / "configuration.md", config_section),
}


def render(text: str, names: list[str]) -> str:
    """``text`` with the named sections regenerated between their markers."""
    for name in names:
        begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
        i, j = text.index(begin) + len(begin), text.index(end)
        text = text[:i] + SECTIONS[name][1]() + text[j:]
    return text


def main(argv: list[str]) -> int:
    pages: dict[Path, list[str]] = {}
    for name, (page, _) in SECTIONS.items():
        pages.setdefault(page, []).append(name)
    stale = []
    for page, names in pages.items():
        text = page.read_text()
        new = render(text, names)
        if new == text:
            continue
        stale.append(page.relative_to(REPO).as_posix())
        if "--check" not in argv:
            page.write_text(new)
    if "--check" in argv:
        if stale:
            print(f"stale: {', '.join(stale)}; run python scripts/readme_tables.py", file=sys.stderr)
        return 1 if stale else 0
    print(f"rewrote {', '.join(stale)}" if stale else "docs reference pages up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
