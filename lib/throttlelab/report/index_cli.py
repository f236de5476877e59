"""``throttlelab index``: rebuild reports/index.html from the reports on disk."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("reports", nargs="?", default="reports", help="reports folder (default: reports)")


def run(args: argparse.Namespace) -> int:
    from throttlelab.errors import ThrottlelabError
    from throttlelab.report.html import write_index

    root = Path(args.reports)
    if not root.is_dir():
        raise ThrottlelabError(f"{root}: reports folder not found (run `throttlelab run STUDY.yaml` first)")
    if not any(root.glob("*/*/run.json")):
        raise ThrottlelabError(f"{root}: no reports found (no */*/run.json); run `throttlelab run STUDY.yaml` first")
    print(write_index(root).resolve())
    return 0
