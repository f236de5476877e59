"""A monitor log's lines as per-line facts (flags, markers, keys and values) and the texts of the lines that need them."""

from __future__ import annotations

from throttlelab.ingest.monitor.monitor_file import line_frame_from_bytes
from throttlelab.ingest.monitor.monitor_line_frame import KEY_ENUM, NO_KEY

LOG = b"--- 2026-02-06 14:24:00.123 ---\n[kubectl top]\nPOD NAME CPU(cores) MEMORY(bytes)\np c 5m 1Mi\n" \
      b"[cgroup cpu.stat]\nnr_periods 10\nnr_throttled -1\nfancy 3\n[odd]\n\nPod: x\n"


def test_facts_of_each_line():
    lf = line_frame_from_bytes(LOG, "x")
    f = lf.frame
    assert lf.flag("hdr").tolist() == [True] + [False] * 10
    assert f["marker"].to_list() == [0, 1, 0, 0, 2, 0, 0, 0, 9, 0, 0]
    assert lf.flag("loghdr").tolist()[-1] is True and lf.flag("blank").tolist() == [False] * 9 + [True, False]
    assert [KEY_ENUM.categories[k] if k != NO_KEY else None for k in f["key"]][5:8] == ["nr_periods", "nr_throttled", None]
    assert f["key"].null_count() == f["val"].null_count() == 0  # read in place by numpy
    assert f["val"].to_list()[5:8] == [10, -1, 3]
    # text kept only where the other columns do not give it, apart from the per-line columns
    lf = line_frame_from_bytes(LOG, "x")
    assert lf.text_at.tolist() == [0, 2, 3, 6, 7, 8, 10]
    assert lf.texts_of(lf.text_at[2:5] + [0, 0, 0]).to_list() == ["p c 5m 1Mi", "nr_throttled -1", "fancy 3"]
    assert lf.texts_of([1, 4, 5, 7]).to_list() == [None, None, None, "fancy 3"]
    assert lf.dense_text().to_list()[4:8] == [None, None, "nr_throttled -1", "fancy 3"]


def test_part_of_the_lines_is_read_as_its_own():
    lf = line_frame_from_bytes(LOG[:-1], "x")
    part = lf.part(3, 11)
    assert len(part) == 8 and part.truncated and not lf.part(0, 3).truncated
    assert [part.text(j) for j in range(8)] == [lf.text(j) for j in range(3, 11)]
    assert part.frame.equals(lf.frame.slice(3))
