"""Block timestamps in the plain forms, read from their bytes with numpy.

``YYYY-MM-DD HH:MM:SS``, optionally with a fraction of 3 or 6 digits and a
``Z``: the forms our writer and the monitor script print.  Anything else (a
``T``, an offset, another fraction, an impossible date) is left to polars'
parser in :func:`.monitor_log.parse_timestamps`; the values agree where both
apply (the tests compare them).
"""

from __future__ import annotations

import numpy as np

from throttlelab.ingest.byte_words import NIBBLES, ZEROS, non_digits, word


def _ts_forms():
    """Per timestamp length: the plain forms as (digit, literal, literal value) masks of 4 words."""
    forms = {19: "dddd-dd-dd dd:dd:dd", 23: "dddd-dd-dd dd:dd:dd.ddd", 26: "dddd-dd-dd dd:dd:dd.dddddd"}
    forms.update({k + 1: v + "Z" for k, v in forms.items()})
    form_of_len = np.zeros(41, dtype=np.int64)
    dig = np.zeros((len(forms) + 1, 4), dtype=np.uint64)
    lit = np.zeros((len(forms) + 1, 4), dtype=np.uint64)
    val = np.zeros((len(forms) + 1, 4), dtype=np.uint64)
    utc = np.zeros(len(forms) + 1, dtype=bool)
    for f, (length, form) in enumerate(sorted(forms.items()), start=1):
        form_of_len[length] = f
        utc[f] = form.endswith("Z")
        for j in range(4):
            part = form[8 * j: 8 * j + 8]
            dig[f, j] = word(bytes(0xFF if ch == "d" else 0 for ch in part))
            lit[f, j] = word(bytes(0 if ch == "d" else 0xFF for ch in part))
            val[f, j] = word(bytes(0 if ch == "d" else ord(ch) for ch in part))
    return form_of_len, dig, lit, val, utc


_TS_FORM_OF_LEN, _TS_DIG, _TS_LIT, _TS_VAL, _TS_UTC = _ts_forms()
_CUM_DAYS = np.array([0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334], dtype=np.int64)
_MONTH_DAYS = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int64)


def plain_timestamps(ts_words: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``YYYY-MM-DD HH:MM:SS`` with an optional fraction of 3 or 6 digits and an
    optional ``Z``, from the 4 words after ``"--- "`` and the timestamp's length:
    (microseconds, kind: 0 UTC, 1 naive, 2 another form or an invalid date, for
    polars to decide)."""
    form = _TS_FORM_OF_LEN[np.clip(length, 0, 40)]
    ok = form > 0
    bad = np.zeros(len(length), dtype=np.uint64)
    digits = []
    uniform = len(form) and (form == form[0]).all()  # one form in the whole log: scalars, not gathers

    def table(t: np.ndarray, j: int):
        return t[form[0], j] if uniform else t[:, j].take(form)

    for j in range(4):
        w = ts_words[j].copy()
        ok &= (w & table(_TS_LIT, j)) == table(_TS_VAL, j)
        dm = table(_TS_DIG, j)
        w &= dm
        w |= ZEROS & ~dm
        bad |= non_digits(w)
        digits.append(w & NIBBLES)
    ok &= bad == 0
    a, b, c_, d = digits

    def at(w: np.ndarray, k: int) -> np.ndarray:
        return ((w >> np.uint64(8 * k)) & np.uint64(0xFF)).view(np.int64)

    y = at(a, 0) * 1000 + at(a, 1) * 100 + at(a, 2) * 10 + at(a, 3)
    mo = at(a, 5) * 10 + at(a, 6)
    day = at(b, 0) * 10 + at(b, 1)
    hh, mi, ss = at(b, 3) * 10 + at(b, 4), at(b, 6) * 10 + at(b, 7), at(c_, 1) * 10 + at(c_, 2)
    frac = at(c_, 4) * 100000 + at(c_, 5) * 10000 + at(c_, 6) * 1000 + at(c_, 7) * 100 + at(d, 0) * 10 + at(d, 1)
    leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
    mo_c = np.clip(mo, 1, 12)
    ok &= (y >= 1000) & (mo >= 1) & (mo <= 12) & (day >= 1) & (day <= _MONTH_DAYS.take(mo_c) + (leap & (mo_c == 2)))
    ok &= (hh <= 23) & (mi <= 59) & (ss <= 59)
    yp = y - 1  # days since 1970-01-01, proleptic Gregorian
    days = yp * 365 + yp // 4 - yp // 100 + yp // 400 + _CUM_DAYS.take(mo_c) + (leap & (mo_c > 2)) + day - 1 - 719162
    us = (days * 86400 + hh * 3600 + mi * 60 + ss) * 1_000_000 + frac
    kind = np.where(ok, np.where(_TS_UTC.take(form), 0, 1), 2).astype(np.uint8)
    return np.where(ok, us, 0), kind
