"""Fast path of the monitor-log reader: well-formed blocks parsed from the bytes.

:func:`read_monitor_bytes` is what :func:`~.monitor_log.read_monitor_log` runs.
The file is cut into chunks of about :data:`CHUNK_BYTES` at block headers;
each chunk is scanned with numpy (newlines, first bytes, 8-byte words; see
:mod:`.byte_words`), on all cores (numpy releases the GIL), and its blocks are
sorted into

* **clean** blocks: every line is blank, a block header, a known section
  marker, a ``<known key> <1-18 digits>`` cpu.stat line, one cpuacct.usage
  line of digits, one short cpu.max line and at most one kubectl top row (both
  parsed once per distinct line, with the careful path's expressions), all
  ASCII, no line too long.  Their values are read straight from the bytes;
* everything else (the lines before the first block, blocks with any odd or
  bad line, several containers...), which goes, whole blocks at a time, through
  the careful line stage (:func:`~.monitor_lines.line_stage`), so that every
  message, skip reason and value is the careful path's.

Both feed the same block stage (:func:`~.monitor_assemble.assemble`): the result is
the same as :func:`~.monitor_log.parse_monitor_lines` on the whole file (the
tests check this on a corpus of bad input).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import polars as pl

from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest import monitor_lines
from throttlelab.ingest import monitor_log as ml
from throttlelab.ingest.byte_words import PAD, Words
from throttlelab.ingest.distinct_lines import distinct_columns
from throttlelab.ingest.malloc_tuning import reuse_freed_memory
from throttlelab.ingest.monitor_assemble import assemble, line_ranges
from throttlelab.ingest.monitor_blocks import Blocks
from throttlelab.ingest.monitor_chunks import NEWLINE, Chunk, chunk_bounds, next_header
from throttlelab.ingest.monitor_scan import scan_chunk
from throttlelab.ingest.monitor_skips import empty_result
from throttlelab.ingest.result import IngestResult

#: Target size of a chunk scanned at once (small enough for its arrays to stay in cache).
CHUNK_BYTES = 2 << 20
#: Inputs from this size on are parsed with :func:`.malloc_tuning.reuse_freed_memory`.
BIG_INPUT = 4 << 20


# --- the whole file -----------------------------------------------------------------


def read_monitor_file(path, *, strict: bool = False, tz: str = "UTC") -> IngestResult:
    """Read a monitor log file (see :func:`~.monitor_log.read_monitor_log`)."""
    buf, size = lines_mod.read_padded(path, PAD)
    return read_monitor_buffer(buf, size, str(path), strict=strict, tz=tz)


def read_monitor_bytes(data: bytes, source: str, *, strict: bool = False, tz: str = "UTC") -> IngestResult:
    """Parse a monitor log held in memory (see :func:`~.monitor_log.read_monitor_log`)."""
    buf, size = lines_mod.read_padded_bytes(data, PAD)
    return read_monitor_buffer(buf, size, source, strict=strict, tz=tz)


def read_monitor_buffer(buf: np.ndarray, size: int, source: str, *, strict: bool = False, tz: str = "UTC",
                        workers: int | None = None) -> IngestResult:
    """Parse the monitor log in ``buf[:size]`` (followed by :data:`~.byte_words.PAD` zero bytes)."""
    if size == 0:
        return empty_result(source, strict)
    mv = memoryview(buf)
    binary = bool((buf[: lines_mod.BINARY_SNIFF_BYTES if size > lines_mod.BINARY_SNIFF_BYTES else size] == 0).any())
    first = size if binary else next_header(mv, size, 0)
    if first >= size:  # binary, or no block a fast scan could take: all careful
        return ml.parse_monitor_lines(lines_mod.split_lines(buf[:size].tobytes(), source), strict=strict, tz=tz)
    truncated = buf[size - 1] != 10
    bounds = chunk_bounds(mv, size, first, CHUNK_BYTES)
    workers = workers or min(os.cpu_count() or 1, 8)
    words = Words(buf)

    def scan(b: tuple[int, int]) -> Chunk:
        return scan_chunk(buf, words, b[0], b[1], truncated and b[1] == size)

    with reuse_freed_memory(size >= BIG_INPUT):
        if workers > 1 and len(bounds) > 1:
            with ThreadPoolExecutor(workers) as ex:
                chunks = list(ex.map(scan, bounds))
                return _combine(buf, words, size, source, first, chunks, strict, tz, ex.submit)
        return _combine(buf, words, size, source, first, [scan(b) for b in bounds], strict, tz, _Done)


class _Done:
    """``submit`` without threads: runs the function now."""

    def __init__(self, fn, *args):
        self.value = fn(*args)

    def result(self):
        return self.value


def _combine(buf: np.ndarray, words: Words, size: int, source: str, first: int, chunks: list[Chunk], strict: bool,
             tz: str, submit) -> IngestResult:
    pre_lines = int(np.count_nonzero(buf[:first] == 10))
    line0 = np.cumsum([pre_lines] + [c.n_lines for c in chunks])
    n = int(line0[-1])
    cat = lambda f: np.concatenate([getattr(c, f) for c in chunks])  # noqa: E731
    boff = np.cumsum([0] + [len(c.hdr_line) for c in chunks])
    nb = int(boff[-1])

    # Independent work, on all cores: distinct cpu.max lines and kubectl top rows.
    byte = cat("hdr_byte")
    max_job = submit(_parse_lines, _parse_max, chunks, "max")
    top_job = submit(_parse_lines, _parse_top, chunks, "top")

    line = np.concatenate([c.hdr_line + line0[i] for i, c in enumerate(chunks)])
    unclean = cat("unclean")
    stat = np.concatenate([c.stat for c in chunks], axis=1)
    stat_present = np.concatenate([c.stat_present for c in chunks], axis=1)
    acct, acct_present = cat("acct"), cat("acct_present")

    # cpu.max: one good line per clean block.
    mb = np.concatenate([c.max_block + boff[i] for i, c in enumerate(chunks)])
    quota = np.zeros(nb, dtype=np.int64)
    period = np.zeros(nb, dtype=np.int64)
    max_present = np.zeros(nb, dtype=bool)
    if len(mb):
        q, per, bad = max_job.result()
        unclean[mb[bad]] = True
        if len(mb) > 1:
            unclean[mb[1:][mb[1:] == mb[:-1]]] = True
        quota[mb], period[mb] = q, per
        max_present[mb] = True

    # kubectl top: at most one row per clean block (several containers: careful path).
    tb = np.concatenate([c.top_block + boff[i] for i, c in enumerate(chunks)])
    top_rows, top_row = None, np.full(nb, -1, dtype=np.int64)
    if len(tb):
        top_rows, ids, bad = top_job.result()
        unclean[tb[bad]] = True
        if len(tb) > 1:
            unclean[tb[1:][tb[1:] == tb[:-1]]] = True
        top_row[tb] = ids
    ts, ts_kind = cat("ts"), cat("ts_kind")

    # Timestamps that are not in the plain forms, and naive ones in another zone.
    ts_ok = ts_kind < 2
    other = np.flatnonzero((ts_kind == 2) & ~unclean)
    if len(other):
        texts = [_header_text(buf, size, int(p)) for p in byte[other]]
        parsed = ml.parse_timestamps(pl.Series(texts, dtype=pl.String), tz)
        ts[other] = parsed.cast(pl.Int64).fill_null(0).to_numpy()
        ts_ok[other] = parsed.is_not_null().to_numpy()
    naive = np.flatnonzero((ts_kind == 1) & ~unclean)
    if tz != "UTC" and len(naive):
        local = pl.Series(ts[naive]).cast(pl.Datetime("us")).dt.replace_time_zone(
            tz, ambiguous="earliest", non_existent="null").dt.convert_time_zone("UTC")
        ts[naive] = local.cast(pl.Int64).fill_null(0).to_numpy()
        ts_ok[naive] = local.is_not_null().to_numpy()

    clean = slice(None) if not unclean.any() else ~unclean  # a slice: no copies
    fast = Blocks(
        line=line[clean], ts=ts[clean], ts_ok=ts_ok[clean], stat=stat[:, clean], stat_present=stat_present[:, clean],
        quota=quota[clean], period=period[clean], max_present=max_present[clean],
        acct=acct[clean], acct_present=acct_present[clean],
        top_rows=top_rows, top_row=top_row[clean],
    )

    # The careful path: the preamble and the unclean blocks, as one text.
    bad_b = np.flatnonzero(unclean)
    b_end_byte = np.append(byte[1:], size)
    b_end_line = np.append(line[1:], n)
    r_byte = [(0, first)] if first else []
    r_line = [(0, pre_lines)] if first else []
    if len(bad_b):
        # merge runs of consecutive unclean blocks
        brk = np.flatnonzero(np.diff(bad_b) != 1) + 1
        run_first = bad_b[np.concatenate([[0], brk])]
        run_last = bad_b[np.concatenate([brk - 1, [len(bad_b) - 1]])]
        r_byte += list(zip(byte[run_first].tolist(), b_end_byte[run_last].tolist()))
        r_line += list(zip(line[run_first].tolist(), b_end_line[run_last].tolist()))
    rc = np.zeros(n, dtype=np.uint8)
    parts = [fast]
    headers = (np.zeros(0, np.int64), pl.Series("t", [], dtype=pl.String))
    sub_text = None
    gmap = np.zeros(0, dtype=np.int64)
    if r_byte:
        sub = lines_mod.split_lines(b"".join(buf[a:b].tobytes() for a, b in r_byte), source, binary=False)
        gmap = line_ranges(np.array([a for a, _ in r_line]), np.array([b for _, b in r_line]))
        if len(gmap) != len(sub):  # the two ways of counting lines disagree (a bug): be careful instead
            return ml.parse_monitor_lines(lines_mod.split_lines(buf[:size].tobytes(), source), strict=strict, tz=tz)
        sub_rc, sub_blocks, (h_idx, h_text) = monitor_lines.line_stage(sub, tz)
        rc[gmap] = sub_rc
        sub_blocks.line = gmap[sub_blocks.line]
        parts.append(sub_blocks)
        headers = (gmap[h_idx], h_text)
        sub_text = sub.text
    blocks = Blocks.concat(parts)
    line_text = _LineText(buf, chunks, line0, gmap, sub_text)
    return assemble(source, n, rc, blocks, headers, line_text, strict)


def _header_text(buf: np.ndarray, size: int, p: int) -> str:
    line = bytes(buf[p: NEWLINE.search(memoryview(buf), p, size).start()])
    return (line[:-1] if line.endswith(b"\r") else line)[4:-4].decode("ascii")


class _LineText:
    """Line ``j``'s text for messages: from the careful part, else decoded from the bytes."""

    def __init__(self, data, chunks, line0, gmap, sub_text):
        self.data, self.chunks, self.line0, self.gmap, self.sub_text = data, chunks, line0, gmap, sub_text

    def __call__(self, j: int) -> str | None:
        k = np.searchsorted(self.gmap, j)
        if k < len(self.gmap) and self.gmap[k] == j:
            return self.sub_text[int(k)]
        i = int(np.searchsorted(self.line0, j, side="right")) - 1
        c = self.chunks[i]
        seg = self.data[c.start:c.stop].tobytes()
        ends = np.flatnonzero(np.frombuffer(seg, dtype=np.uint8) == 10)
        r = j - int(self.line0[i])
        a = 0 if r == 0 else int(ends[r - 1]) + 1
        b = int(ends[r]) if r < len(ends) else len(seg)
        text = seg[a:b].decode("utf-8", "replace")
        text = text[:-1] if text.endswith("\r") else text
        return text or None


def _parse_lines(parse, chunks: list[Chunk], field: str):
    """Parse the distinct lines of all chunks (``field``: ``"max"`` or ``"top"``) once:
    ``parse(words)`` -> per distinct line results; returns them per line of every chunk."""
    reps = [getattr(c, field + "_words") for c in chunks]
    offset = np.cumsum([0] + [r.shape[1] for r in reps])
    rows, inv = distinct_columns(np.concatenate(reps, axis=1))
    line_ids = inv[np.concatenate([getattr(c, field + "_id") + offset[i] for i, c in enumerate(chunks)])]
    return parse(rows, line_ids)


def _parse_max(words: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct cpu.max lines (words, as :func:`.distinct_lines.line_words` gives them) ->
    per line (``ids``) quota, period, bad."""
    if len(ids) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, bool)
    parsed = pl.DataFrame({"t": _texts(words)}).select(**monitor_lines.cpu_max_exprs(pl.col("t")))
    bad = (parsed["quota"].is_null() | parsed["period"].is_null()).to_numpy()[ids]
    return parsed["quota"].fill_null(0).to_numpy()[ids], parsed["period"].fill_null(0).to_numpy()[ids], bad


def _parse_top(words: np.ndarray, ids: np.ndarray) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
    """Distinct kubectl top rows (words) -> (rows parsed, ``ids``, bad per line)."""
    if len(ids) == 0:
        return None, ids, np.zeros(0, bool)
    rows = monitor_lines.top_rows(_texts(words))
    return rows, ids, (rows["cpu"].is_null() | rows["mem"].is_null()).to_numpy()[ids]


def _texts(cols: np.ndarray) -> pl.Series:
    """The lines held in columns of words + length (see :func:`.distinct_lines.line_words`)."""
    lens = cols[-1].astype(np.int64)
    raw = np.ascontiguousarray(cols[:-1].T).astype("<u8").tobytes()
    w = (len(cols) - 1) * 8
    return pl.Series("t", [raw[i * w: i * w + int(k)].decode("utf-8", "replace") for i, k in enumerate(lens)], dtype=pl.String)
