"""The README is a short front page (what it answers, a screenshot, the two commands, the six CLI commands,
links into the docs), and the generated docs reference pages match the code."""

import re
import subprocess
import sys
from pathlib import Path

import yaml

from throttlelab import cli

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
NUMBERS = {5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _nav_pages(nav) -> list[str]:
    """Every Markdown page of mkdocs.yml's nav, in order."""
    out = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        out += _nav_pages(value) if isinstance(value, list) else [value]
    return out


def test_docs_reference_pages_up_to_date():
    rc = subprocess.run([sys.executable, str(REPO / "scripts" / "readme_tables.py"), "--check"]).returncode
    assert rc == 0, "docs reference pages are stale: run .venv/bin/python scripts/readme_tables.py"


def test_readme_is_short_and_gives_the_two_commands():
    text = README.read_text()
    lines = text.count("\n")
    assert lines <= 250, f"README.md has {lines} lines; at most 250 (the rest belongs in docs/)"
    for command in ("make report", "make test", "make docs"):
        assert f"\n{command}" in text or f"`{command}`" in text, command
    assert "Python 3.11" in text and "reports/index.html" in text


def test_readme_names_every_cli_command():
    text = README.read_text()
    page = (REPO / "docs" / "command-line.md").read_text()
    for name in cli.COMMANDS:
        assert f"throttlelab {name}" in text, f"README.md does not show `throttlelab {name}`"
        assert f"throttlelab {name}" in page, f"docs/command-line.md does not show `throttlelab {name}`"
    count = f"has {NUMBERS[len(cli.COMMANDS)]} commands"
    assert count in text and count in page, f"README.md and docs/command-line.md must say the CLI {count}"


def test_readme_shows_a_screenshot_and_its_links_resolve():
    links = LINK.findall(README.read_text())
    assert any(t.startswith("docs/screenshots/") and t.endswith(".png") for t in links), "no screenshot in README.md"
    local = [t for t in links if "://" not in t and not t.startswith("#")]
    missing = [t for t in local if not (REPO / t.split("#")[0]).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_readme_links_every_docs_page():
    nav = _nav_pages(yaml.safe_load((REPO / "mkdocs.yml").read_text())["nav"])
    links = set(LINK.findall(README.read_text()))
    unlinked = [p for p in nav if f"docs/{p}" not in links and p != "index.md"]  # the README is the front page
    assert not unlinked, f"README.md does not link these docs pages: {unlinked}"
