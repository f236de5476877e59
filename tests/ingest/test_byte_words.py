"""Word loads and SWAR digit parsing against plain Python."""

from __future__ import annotations

import random

import numpy as np

from throttlelab.ingest.byte_words import PAD, Words, parse_digits, word_views
from throttlelab.ingest.lines import read_padded_bytes


def _lines(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = ("--- a block header ---\n" + "\n".join(texts) + "\n").encode("latin-1")
    buf, size = read_padded_bytes(data, PAD)
    nl = np.flatnonzero(buf[:size] == 10)
    return buf, nl[:-1] + 1, nl[1:]


def test_words_at_any_offset():
    rnd = np.random.default_rng(0)
    buf = np.concatenate([rnd.integers(0, 256, 4000, dtype=np.uint8), np.zeros(PAD, np.uint8)])
    pos = rnd.integers(0, 4000, 1000)
    u64, _ = word_views(buf)
    w0, w1, w2 = Words(buf).at(pos, 3)
    assert (w0 == u64[pos]).all() and (w1 == u64[pos + 8]).all() and (w2 == u64[pos + 16]).all()


def test_parse_digits_matches_int():
    r = random.Random(1)
    values = []
    for _ in range(5000):
        d = r.randint(0, 21)
        s = "".join(r.choice("0123456789") for _ in range(d))
        if r.random() < 0.25 and d:
            i = r.randrange(d)
            s = s[:i] + r.choice(" x/:+-\x00\xff\x7f.") + s[i + 1:]
        values.append(s)
    buf, starts, ends = _lines([f"some_key_name {v}" for v in values])
    value, ok = parse_digits(Words(buf), ends, ends - starts - 14)
    for v, got, good in zip(values, value, ok):
        expected = 1 <= len(v) <= 18 and all(c in "0123456789" for c in v)
        assert good == expected, v
        if expected:
            assert got == int(v), v


def test_parse_digits_edge_values():
    values = ["0", "7", "00000000", "99999999", "100000000", "999999999999999999", "000000000000000001"]
    buf, starts, ends = _lines([f"k {v}" for v in values])
    value, ok = parse_digits(Words(buf), ends, ends - starts - 2)
    assert ok.all() and value.tolist() == [int(v) for v in values]
