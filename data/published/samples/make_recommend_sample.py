#!/usr/bin/env python3
"""Write the bundled OpenMetrics export of a small namespace (the default input of notebooks/08_recommend).

Six containers of namespace ``shop`` (starved, oversized, well-sized, bursty, no limit, restarted; see
:func:`throttlelab.experiment.synthetic_containers.scenario_specs`) over 26 hours from 2026-01-01T00:00:00Z,
cAdvisor counters every 30 s, kube-state-metrics requests/limits and cAdvisor quota/period every 5 minutes.

    .venv/bin/python data/published/samples/make_recommend_sample.py data/published/samples/shop_namespace.om.gz
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

from throttlelab.experiment.synthetic_containers import openmetrics_text, scenario_specs

START = 1_767_225_600.0  # 2026-01-01T00:00:00Z
HOURS = 26
SCRAPE_S = 30.0


def main(dest: str) -> int:
    text = openmetrics_text(scenario_specs("shop"), start=START, hours=HOURS, scrape_s=SCRAPE_S, gauge_every_s=300)
    with open(Path(dest), "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as fh:
        fh.write(text.encode())  # mtime 0: the same settings give the same bytes
    print(f"wrote {dest}: {text.count(chr(10)) - 1:,d} samples")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "data/published/samples/shop_namespace.om.gz"))
