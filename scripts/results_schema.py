#!/usr/bin/env python3
"""Write docs/results_schema.json and the generated section of docs/results_schema.md from the result classes.

Run ``python scripts/results_schema.py`` after changing a result class; ``--check`` exits 1 when the
committed copies are stale (the tests do the same).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from throttlelab.report import json_schema, markdown

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "docs" / "results_schema.json"
DOC = ROOT / "docs" / "results_schema.md"
BEGIN = "<!-- BEGIN generated: result classes (scripts/results_schema.py) -->"
END = "<!-- END generated -->"


def expected() -> tuple[str, str]:
    """(schema JSON text, Markdown document text) as they should be committed."""
    schema = json_schema()
    text = json.dumps(schema, indent=1, sort_keys=False) + "\n"
    doc = DOC.read_text()
    section = f"{BEGIN}\n\n## Result classes\n\nGenerated from the classes; the JSON Schema is `docs/results_schema.json`.\n\n" \
              f"{markdown(schema)}\n{END}"
    if BEGIN in doc:
        head, rest = doc.split(BEGIN, 1)
        doc = head + section + rest.split(END, 1)[1]
    else:
        doc = doc.rstrip("\n") + "\n\n" + section + "\n"
    return text, doc


def main(argv: list[str]) -> int:
    text, doc = expected()
    if "--check" in argv:
        stale = [p.name for p, t in ((SCHEMA, text), (DOC, doc)) if not p.exists() or p.read_text() != t]
        if stale:
            print(f"stale: {', '.join(stale)}; run python scripts/results_schema.py", file=sys.stderr)
            return 1
        return 0
    SCHEMA.write_text(text)
    DOC.write_text(doc)
    print(f"wrote {SCHEMA.relative_to(ROOT)} and {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
