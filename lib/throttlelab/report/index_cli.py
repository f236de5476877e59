"""``throttlelab index``: rebuild reports/index.html from the reports on disk."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("reports", nargs="?", default="reports", help="reports folder (default: reports)")


def run(args: argparse.Namespace) -> int:
    from throttlelab.report.index import write_index

    print(write_index(Path(args.reports)).resolve())
    return 0
