"""``throttlelab run STUDY.yaml``: run a study and publish its reports."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("study", help="study file (YAML)")
    p.add_argument("--reports", default=None, help="reports folder (default: <project>/reports)")
    p.add_argument("-j", "--jobs", type=int, default=2, help="notebooks executed at once (default 2)")
    p.add_argument("--only", action="append", metavar="RUN", help="run only this run (repeatable)")
    p.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"), default=[],
                   help="set a notebook parameter in every run (repeatable; VALUE is read as YAML: 3, 0.5, text)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also show each notebook's start, all its headlines and the kernels' log messages")


def run(args: argparse.Namespace) -> int:
    import sys

    from throttlelab.report.study import load_study, run_study, with_parameters

    study = load_study(args.study).select(args.only)
    study = with_parameters(study, parse_parameters(args.parameter))
    reports = Path(args.reports) if args.reports else study.root / "reports"
    outcome = run_study(study, reports, jobs=max(1, args.jobs), verbose=args.verbose)
    print(f"index: {outcome.index.resolve()}")
    skipped = [o for o in outcome.outcomes if o.status == "skipped"]
    for o in skipped:
        print(f"skipped {o.name}: {o.error}")
    if outcome.failed:
        print(f"FAILED ({len(outcome.failed)} of {len(outcome.outcomes)}): {', '.join(outcome.failed)}", file=sys.stderr)
        return 1
    print(f"{len(outcome.outcomes) - len(skipped)} report(s) in {outcome.seconds:.1f} s")
    return 0


def parse_parameters(pairs: list[list[str]]) -> dict:
    """``-p NAME VALUE`` pairs as a dict, each VALUE read as YAML (``3`` -> 3, ``x`` -> "x").

    >>> parse_parameters([["seed", "3"], ["runs_path", "data/raw/x"]])
    {'seed': 3, 'runs_path': 'data/raw/x'}
    """
    import yaml

    out = {}
    for name, value in pairs:
        try:
            out[name] = yaml.safe_load(value) if value != "" else ""
        except yaml.YAMLError:
            out[name] = value
    return out
