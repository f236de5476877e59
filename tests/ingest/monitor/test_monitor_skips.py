"""Skip accounting of the monitor reader: counts, examples, the first problem, strict mode."""

from __future__ import annotations

import numpy as np
import pytest

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.ingest.monitor.monitor_skips import REASONS, R, empty_result, ingest_result

TEXT = ["a", "b", "c", "d", "e"]


def test_counts_examples_and_first():
    rc = np.array([0, R["bad cpu.stat line"], 0, R["bad cpu.stat line"], R["unrecognised line"]], dtype=np.uint8)
    r = ingest_result("x.log", rc, TEXT.__getitem__, tables.empty("samples"), 5, False, {"naive_timestamps_tz": "UTC"})
    assert r.skipped.counts == {"bad cpu.stat line": 2, "unrecognised line": 1}
    assert [s.line for s in r.skipped.examples["bad cpu.stat line"]] == [2, 4]
    assert str(r.skipped.first) == "x.log:2: bad cpu.stat line: 'b'"
    assert (r.lines_total, r.lines_used) == (5, 2)
    assert [p["naive_timestamps_tz"] for p in r.provenance.values()] == ["UTC"]


def test_strict_raises_at_the_first():
    rc = np.array([0, 0, R["out-of-order timestamp"], 0, 0], dtype=np.uint8)
    with pytest.raises(InputError, match="out-of-order timestamp") as e:
        ingest_result("x.log", rc, TEXT.__getitem__, tables.empty("samples"), 5, True)
    assert e.value.line == 3


def test_empty_and_reason_codes():
    assert empty_result("e.log", False).skipped.first.reason == "empty file"
    with pytest.raises(InputError, match="empty file"):
        empty_result("e.log", True)
    assert REASONS[0] is None and len(set(REASONS)) == len(REASONS)
