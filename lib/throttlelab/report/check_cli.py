"""``throttlelab check [REPORTS]``: open the index and every report in headless Chromium."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("reports", nargs="?", default="reports", help="reports folder (default: reports)")
    p.add_argument("--screenshots", metavar="DIR", default=None,
                   help="also save each page's first screen (1280x800) as a PNG into DIR")


def run(args: argparse.Namespace) -> int:
    from throttlelab.errors import EnvironmentProblem, ThrottlelabError
    from throttlelab.report.html import check_pages, chromium_path

    root = Path(args.reports)
    if not root.is_dir():
        raise ThrottlelabError(f"{root}: reports folder not found (run `throttlelab run STUDY.yaml` first)")
    pages = [p for p in [root / "index.html", *sorted(root.glob("*/*/report.html"))] if p.exists()]
    if not pages:
        raise ThrottlelabError(f"{root}: no index.html and no */*/report.html to check")
    if chromium_path() is None:
        raise EnvironmentProblem("chromium not found: run `make system-tools` (Debian package chromium)")
    shots = [screenshot_path(Path(args.screenshots), root, p) for p in pages] if args.screenshots else None
    bad = 0
    for page, check in zip(pages, check_pages(pages, screenshots=shots)):
        problems = check.problems + ([] if page.name == "index.html" else check.answer_problems)
        bad += bool(problems)
        print(f"{'ok ' if not problems else 'BAD'} {page}: {check.drawn}/{check.charts} charts drawn"
              + (f", {len(problems)} problem(s)" if problems else ""))
        for msg in problems:
            print(f"    {msg[:300]}")
    print(f"{len(pages) - bad} of {len(pages)} pages render offline with every chart drawn, the answer first "
          "and no leaked repr")
    return 1 if bad else 0


def screenshot_path(folder: Path, root: Path, page: Path) -> Path:
    """``index.png`` for the index, ``<study>-<run>.png`` for a report."""
    if page.parent == root:
        return folder / "index.png"
    return folder / f"{page.parent.parent.name}-{page.parent.name}.png"
