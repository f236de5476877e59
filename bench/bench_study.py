"""Wall time of the published-data study and the share spent starting kernels.

Goal (issue 2): under 60 s on the 2-core machine once set up.
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> int:
    from throttlelab.report.study import load_study, run_study

    study = load_study(REPO / "studies" / "published.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        outcome = run_study(study, Path(tmp), jobs=2, log=io.StringIO())
    print(f"published-data study: {len(outcome.outcomes)} notebooks in {outcome.seconds:.1f} s wall, 2 at a time "
          f"as `throttlelab run` does (goal < 60 s)")
    for o in outcome.outcomes:
        ks = f"{o.kernel_start_seconds:.1f}" if o.kernel_start_seconds is not None else "?"
        print(f"  {o.name:32s} {o.status:8s} {o.seconds:6.1f} s  (kernel start {ks} s)")
    share = outcome.kernel_start_share
    print(f"share of notebook time spent starting kernels: {share:.0%}" if share is not None else "kernel start share: unknown")
    return 0 if outcome.ok else 1
