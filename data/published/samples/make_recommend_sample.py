#!/usr/bin/env python3
"""Write the bundled OpenMetrics export of a small namespace (the default input of notebooks/08_recommend).

Six containers of namespace ``shop`` (starved, oversized, well-sized, bursty, no limit, restarted; see
:func:`throttlelab.experiment.simulation.scenario_specs`) over 26 hours from
2026-01-01T00:00:00Z, cAdvisor counters every 30 s (with the ``node`` and ``instance`` of each container),
kube-state-metrics requests/limits and cAdvisor quota/period every 5 minutes, and each node's size
(``machine_cpu_cores``, ``SCENARIO_NODES``: the starved container on a 2-core node) every 5 minutes.

    .venv/bin/python data/published/samples/make_recommend_sample.py data/published/samples/shop_namespace.om.gz

The text is the same on every machine (``SHA256`` is its SHA-256, checked by ``tests/test_samples.py``); the gzip
bytes around it depend on the zlib build.
"""

from __future__ import annotations

import gzip
import hashlib
import sys
from pathlib import Path

from throttlelab.experiment.simulation import SCENARIO_NODES, openmetrics_text, scenario_specs

START = 1_767_225_600.0  # 2026-01-01T00:00:00Z
HOURS = 26
SCRAPE_S = 30.0
#: SHA-256 of the decompressed export.
SHA256 = "76a815fbae9bb648e978272310f71c32d7bcf17b241efb13b239d42ea32dca49"


def sample_text() -> str:
    """The export's OpenMetrics text."""
    return openmetrics_text(scenario_specs("shop"), start=START, hours=HOURS, scrape_s=SCRAPE_S, gauge_every_s=300,
                            nodes=SCENARIO_NODES)


def text_sha256(text: str) -> str:
    """SHA-256 (hex) of the text's UTF-8 bytes."""
    return hashlib.sha256(text.encode()).hexdigest()


def main(dest: str) -> int:
    text = sample_text()
    with open(Path(dest), "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as fh:
        fh.write(text.encode())  # mtime 0: the same settings and zlib give the same bytes
    digest = text_sha256(text)
    print(f"wrote {dest}: {text.count(chr(10)) - 1:,d} samples, text SHA-256 {digest}")
    if digest != SHA256:
        print(f"the text differs from the bundled export's (SHA-256 {SHA256})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "data/published/samples/shop_namespace.om.gz"))
