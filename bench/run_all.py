#!/usr/bin/env python3
"""``make bench``: run every ``bench/bench_*.py`` (each has ``main()``), one after another.

Benchmarks print ratios measured within one run (the machine is shared and
noisy, +-15-25% run to run); nothing here is asserted by the tests.
Run one with ``python bench/run_all.py ingest``.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    only = set(argv)
    failed = []
    for path in sorted(HERE.glob("bench_*.py")):
        name = path.stem.removeprefix("bench_")
        if only and name not in only:
            continue
        print(f"\n=== bench {name} ===", flush=True)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        t0 = time.perf_counter()
        try:
            spec.loader.exec_module(mod)
            rc = mod.main() or 0
        except Exception as exc:  # keep going; report at the end
            print(f"bench {name} failed: {type(exc).__name__}: {exc}", flush=True)
            rc = 1
        print(f"=== bench {name}: {'ok' if rc == 0 else 'FAILED'} in {time.perf_counter() - t0:.1f} s", flush=True)
        if rc:
            failed.append(name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
