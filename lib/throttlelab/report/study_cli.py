"""``throttlelab run STUDY.yaml``: run a study and publish its reports."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("study", help="study file (YAML)")
    p.add_argument("--reports", default=None, help="reports folder (default: <project>/reports)")
    p.add_argument("-j", "--jobs", type=int, default=2, help="notebooks executed at once (default 2)")
    p.add_argument("--only", action="append", metavar="RUN", help="run only this run (repeatable)")


def run(args: argparse.Namespace) -> int:
    import sys

    from throttlelab.report.study_runner import run_study
    from throttlelab.report.study import load_study

    study = load_study(args.study).select(args.only)
    reports = Path(args.reports) if args.reports else study.root / "reports"
    outcome = run_study(study, reports, jobs=max(1, args.jobs))
    print(f"index: {outcome.index.resolve()}")
    skipped = [o for o in outcome.outcomes if o.status == "skipped"]
    for o in skipped:
        print(f"skipped {o.name}: {o.error}")
    if outcome.failed:
        print(f"FAILED ({len(outcome.failed)} of {len(outcome.outcomes)}): {', '.join(outcome.failed)}", file=sys.stderr)
        return 1
    print(f"{len(outcome.outcomes) - len(skipped)} report(s) in {outcome.seconds:.1f} s")
    return 0
