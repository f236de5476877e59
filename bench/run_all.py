#!/usr/bin/env python3
"""``make bench``: run every ``bench/bench_*.py`` (each has ``main()``), one after another.

Benchmarks print ratios measured within one run (the machine is shared and
noisy, +-15-25% run to run); nothing here is asserted by the tests.  A
benchmark whose ``main()`` returns non-zero missed its goal; one that raises
failed to run.  Every benchmark runs whatever the others did; the last lines
name those that missed their goals and those that failed, and the exit code is
1 if any did.  Run one with ``python bench/run_all.py ingest``.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str], here: Path = HERE) -> int:
    only = set(argv)
    missed, failed = [], []
    for path in sorted(here.glob("bench_*.py")):
        name = path.stem.removeprefix("bench_")
        if only and name not in only:
            continue
        print(f"\n=== bench {name} ===", flush=True)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        t0 = time.perf_counter()
        crashed = False
        try:
            spec.loader.exec_module(mod)
            rc = mod.main() or 0
        except SystemExit as exc:  # a benchmark that exits instead of returning
            rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception as exc:  # keep going; report at the end
            print(f"bench {name} failed: {type(exc).__name__}: {exc}", flush=True)
            rc, crashed = 1, True
        verdict = "ok" if rc == 0 else "FAILED (did not run to the end)" if crashed else "MISSED ITS GOAL"
        print(f"=== bench {name}: {verdict} in {time.perf_counter() - t0:.1f} s", flush=True)
        if crashed:
            failed.append(name)
        elif rc:
            missed.append(name)
    if missed:
        print(f"\nbenchmarks that missed their goals: {', '.join(missed)}", flush=True)
    if failed:
        print(f"{'' if missed else chr(10)}benchmarks that failed to run: {', '.join(failed)}", flush=True)
    return 1 if missed or failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
