#!/usr/bin/env python3
"""Regenerate the generated sections of README.md.

* the canonical tables, from ``throttlelab.tables``;
* the notebooks list, from each notebook's title (its first markdown heading);
* the configuration reference, from the pydantic models of each configuration file.

    .venv/bin/python scripts/readme_tables.py          # rewrite README.md
    .venv/bin/python scripts/readme_tables.py --check  # exit 1 if out of date

tests/test_readme.py runs the check, so the README cannot drift.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from throttlelab import tables

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"


def tables_section() -> str:
    parts = [""]
    for name in tables.TABLES:
        parts += [f"#### `{name}`", "", tables.describe(name), ""]
    parts += ["#### response metrics (`runs` columns an analysis can take as `metric`)", "",
              "| metric | unit | direction | in words |", "|---|---|---|---|"]
    parts += [f"| `{m.name}` | {m.unit} | {m.direction} | {m.label} |" for m in tables.RESPONSE_METRICS.values()]
    return "\n".join([*parts, ""])


def notebooks_section() -> str:
    rows = ["", "| notebook | question |", "|---|---|"]
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        md = "".join(cells[0]["source"]) if cells and cells[0]["cell_type"] == "markdown" else ""
        title = next((ln.lstrip("# ").strip() for ln in md.splitlines() if ln.startswith("#")), path.stem)
        number = path.stem.split("_", 1)[0]
        title = title if title.startswith(number) else f"{number} · {title}"  # titles carry no number (reports)
        rows.append(f"| [`{path.name}`](notebooks/{path.name}) | {title.replace('|', '/')} |")
    return "\n".join(rows) + "\n"


def config_section() -> str:
    from throttlelab.config_file import reference_markdown
    from throttlelab.experiment.latency.latency_sweep import LatencySweepFile
    from throttlelab.experiment.sweeps.spec_file import WORKLOAD_OPTIONS, SweepSpecFile
    from throttlelab.report.study import StudyFile

    return "\n" + "\n".join(reference_markdown(m) for m in (StudyFile, SweepSpecFile, *[m for m in WORKLOAD_OPTIONS.values()
                                                                                if m.model_fields], LatencySweepFile))


SECTIONS = {"tables": tables_section, "notebooks": notebooks_section, "config": config_section}


def render(text: str) -> str:
    for name, fn in SECTIONS.items():
        begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
        i, j = text.index(begin) + len(begin), text.index(end)
        text = text[:i] + fn() + text[j:]
    return text


if __name__ == "__main__":
    text = README.read_text()
    new = render(text)
    if "--check" in sys.argv:
        sys.exit(0 if new == text else 1)
    README.write_text(new)
