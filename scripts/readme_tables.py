#!/usr/bin/env python3
"""Regenerate the canonical-tables section of README.md from throttlelab.tables.

    .venv/bin/python scripts/readme_tables.py          # rewrite README.md
    .venv/bin/python scripts/readme_tables.py --check  # exit 1 if out of date

tests/test_readme.py runs the check, so the README cannot drift from the module.
"""

from __future__ import annotations

import sys
from pathlib import Path

from throttlelab import tables

README = Path(__file__).resolve().parents[1] / "README.md"
BEGIN, END = "<!-- tables:begin -->", "<!-- tables:end -->"


def section() -> str:
    parts = [BEGIN, ""]
    for name in tables.TABLES:
        parts += [f"#### `{name}`", "", tables.describe(name), ""]
    parts.append(END)
    return "\n".join(parts)


def render(text: str) -> str:
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + section() + text[end:]


if __name__ == "__main__":
    text = README.read_text()
    new = render(text)
    if "--check" in sys.argv:
        sys.exit(0 if new == text else 1)
    README.write_text(new)
