"""The README documents the canonical tables exactly as tables.py defines them."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_readme_tables_up_to_date():
    rc = subprocess.run([sys.executable, str(REPO / "scripts" / "readme_tables.py"), "--check"]).returncode
    assert rc == 0, "README.md tables section is stale: run .venv/bin/python scripts/readme_tables.py"
