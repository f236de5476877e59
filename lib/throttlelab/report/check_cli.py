"""``throttlelab check [REPORTS]``: open the index and every report in headless Chromium."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("reports", nargs="?", default="reports", help="reports folder (default: reports)")


def run(args: argparse.Namespace) -> int:
    from throttlelab.errors import EnvironmentProblem
    from throttlelab.report.browser import check_pages, chromium_path

    if chromium_path() is None:
        raise EnvironmentProblem("chromium not found: run `make system-tools` (Debian package chromium)")
    root = Path(args.reports)
    pages = [root / "index.html", *sorted(root.glob("*/*/report.html"))]
    pages = [p for p in pages if p.exists()]
    bad = 0
    for check in check_pages(pages):
        ok = check.ok
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {check.url}: {check.drawn}/{check.charts} charts drawn"
              + (f", {len(check.console_errors)} console errors" if check.console_errors else "")
              + (f", {len(check.network_requests)} network requests" if check.network_requests else ""))
        for msg in (*check.chart_errors, *check.console_errors, *check.network_requests):
            print(f"    {msg[:300]}")
    print(f"{len(pages) - bad} of {len(pages)} pages render offline with every chart drawn")
    return 1 if bad else 0
