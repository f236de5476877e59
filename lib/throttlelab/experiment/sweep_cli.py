"""``throttlelab sweep SPEC.yaml``: run (or resume) a sweep from a spec.

Examples::

    throttlelab sweep studies/local_sweep.yaml --dry-run     # the plan, what is done, can it run here
    throttlelab sweep studies/local_sweep.yaml               # run or resume
    throttlelab sweep studies/local_sweep.yaml --data-root /tmp/raw
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", help="sweep spec (YAML)")
    parser.add_argument("--dry-run", action="store_true", help="print the plan and what is already done; run nothing")
    parser.add_argument("--data-root", metavar="DIR", help="folder of experiments (default: the spec's data_root)")
    parser.add_argument("--retry-failed", action="store_true", help="redo runs that failed or timed out")
    parser.add_argument("--max-runs", type=int, metavar="N", help="stop after N runs (resume later)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    import logging

    from throttlelab.experiment.registry import get_backend
    from throttlelab.experiment.sweeps import RunStore, load_spec, pending_runs, run_sweep

    logging.basicConfig(level=logging.WARNING, format="throttlelab: %(message)s")
    spec = load_spec(args.spec, data_root=args.data_root)
    store = RunStore(spec.experiment_dir)
    plan = spec.plan()
    todo = pending_runs(spec, store, retry_failed=args.retry_failed)
    if spec.design == "adaptive":
        return _adaptive(spec, store, args)
    if args.dry_run:
        return _dry_run(spec, plan, {p.run_id for p in todo})
    df = run_sweep(spec, get_backend(spec.backend), progress=not args.no_progress, retry_failed=args.retry_failed,
                   max_runs=args.max_runs)
    mine = df.filter(df["run_id"].is_in([p.run_id for p in plan]))
    counts = mine["status"].value_counts(sort=True)
    summary = ", ".join(f"{n} {s}" for s, n in counts.iter_rows())
    print(f"{spec.name}: {mine.height}/{len(plan)} runs recorded ({summary or 'none'}) in {store.directory}")
    return 0 if mine.height == len(plan) or args.max_runs else 1


def _adaptive(spec, store, args) -> int:
    """Run (or, with --dry-run, only describe) an adaptive sweep; print its decisions and what is open."""
    from throttlelab.experiment.registry import get_backend
    from throttlelab.experiment.sweeps import run_sweep
    from throttlelab.experiment.sweeps.adaptive import AdaptiveDesign

    if args.dry_run:
        design = AdaptiveDesign(spec, store.read_runs())
        nxt = design.next_run()
        ok, reason = get_backend(spec.backend).available()
        print(f"experiment {spec.name}: adaptive design over {len(design.layout.cells)} cells, budget {design.budget} "
              f"runs ({design.grid_runs} in the full grid), {design.runs_used} done; next: "
              + (f"{nxt[0].run_id} ({nxt[1]})" if nxt else "nothing (finished)"))
        print(f"backend {spec.backend}: " + ("available" if ok else f"NOT available: {reason}"))
        return 0
    df = run_sweep(spec, get_backend(spec.backend), progress=not args.no_progress, retry_failed=args.retry_failed,
                   max_runs=args.max_runs)
    status = AdaptiveDesign(spec, df).status()
    print(f"{spec.name}: adaptive, {status.runs_used} runs of a {status.budget}-run budget "
          f"({status.grid_runs} in the full grid); {status.stop_reason}; data in {store.directory}")
    if status.joint is not None:
        print(f"  all {len(status.decisions or [])} decisions right together: {status.joint:.1%} "
              f"(stated confidence {spec.adaptive.confidence:.0%})")
    for d in status.decisions or []:
        state = "decided" if d.resolved else "OPEN"
        print(f"  {d.subject:<36} {d.answer:>10}  confidence {d.confidence:.1%} ({state})")
    return 0 if status.finished or args.max_runs else 1


def _dry_run(spec, plan, todo: set[str]) -> int:
    from throttlelab.core import format_cores
    from throttlelab.experiment.registry import get_backend

    print(f"experiment {spec.name}: {len(plan)} runs ({len(plan) - len(todo)} done, {len(todo)} to do), "
          f"backend {spec.backend}, workload {spec.workload.kind}, data in {spec.experiment_dir}")
    print(f"{'order':>5}  {'run_id':<36} {'limit':>8} {'threads':>7} {'neighbour':>9} {'rep':>3}  state")
    for p in plan:
        lim = format_cores(p.limit_cores, unlimited="unlim")
        state = ("todo" if p.run_id in todo else "done") + (" (warm-up)" if p.warmup else "")
        print(f"{p.order:>5}  {p.run_id:<36} {lim:>8} {p.threads:>7} {p.contention.label:>9} {p.replicate:>3}  {state}")
    ok, reason = get_backend(spec.backend).available()
    print(f"backend {spec.backend}: " + ("available" if ok else f"NOT available: {reason}"))
    return 0
