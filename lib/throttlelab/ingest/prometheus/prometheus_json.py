"""Prometheus ``/api/v1/query(_range)`` JSON read lazily: one series object at a time.

A range query over many series can be hundreds of MB; loading it whole makes
Python objects many times that size.  The response is written ``{"status":
"success", "data": {"resultType": "matrix", "result": [ {series}, ... ]}}``:
the prefix up to ``"result": [`` is read for the status and result type, then
each series object is decoded on its own from a sliding text buffer.  A file
in any other arrangement (an error response, keys in another order) is
loaded whole instead, with the same results.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator

from throttlelab.errors import InputError
from throttlelab.ingest.input_files import open_input
from throttlelab.ingest.json_input import load_json

_PREFIX = re.compile(r'^\s*\{\s*"status"\s*:\s*"success"\s*,\s*"data"\s*:\s*\{\s*"resultType"\s*:\s*"(\w+)"\s*,\s*"result"\s*:\s*\[')
_READ = 4 * 2**20


def _whole(path) -> tuple[dict, list]:
    source = str(path)
    doc = load_json(path)
    if isinstance(doc, dict) and doc.get("status") not in (None, "success"):
        raise InputError(source, None, "Prometheus query failed", str(doc.get("error", doc.get("status"))))
    if not isinstance(doc, dict) or not isinstance(doc.get("data"), dict):
        raise InputError(source, None, "not a Prometheus API response", "no 'data' object")
    return doc["data"], doc["data"].get("result") or []


def read_result(path) -> tuple[str | None, Iterator]:
    """(resultType, iterator over the ``result`` items) of a response file."""
    source = str(path)
    with open_input(path) as f:
        head = f.read(64 * 1024)
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = head[: exc.start].decode("utf-8")
    m = _PREFIX.match(text.lstrip("\ufeff"))
    if m is None:
        data, result = _whole(path)
        return data.get("resultType"), iter(result)
    return m.group(1), _items(path, source)


def _items(path, source: str) -> Iterator:
    dec = json.JSONDecoder()
    utf8 = codecs.getincrementaldecoder("utf-8")()
    with open_input(path) as f:
        buf, eof, lines_before = "", False, 0

        def more() -> bool:
            nonlocal buf, eof
            block = f.read(_READ)
            try:
                buf += utf8.decode(block, final=not block)
            except UnicodeDecodeError:
                raise InputError(source, None, "not UTF-8 JSON") from None
            eof = not block
            return bool(block)

        while not eof and "[" not in buf:
            more()
        m = _PREFIX.match(buf.lstrip("\ufeff"))
        if m is None:  # cannot happen after read_result's check, but never guess
            raise InputError(source, None, "not a Prometheus API response")
        pos = len(buf) - len(buf.lstrip("\ufeff")) + m.end()
        while True:
            while True:
                while pos < len(buf) and buf[pos] in " \t\r\n,":
                    pos += 1
                if pos < len(buf) or eof:
                    break
                more()
            if pos >= len(buf):
                raise InputError(source, lines_before + buf.count("\n", 0, pos) + 1, "invalid JSON",
                                 "the file ends inside the result list")
            if buf[pos] == "]":
                return
            try:
                item, end = dec.raw_decode(buf, pos)
            except json.JSONDecodeError as exc:
                if not eof and more():
                    continue
                raise InputError(source, lines_before + buf.count("\n", 0, exc.pos) + 1, "invalid JSON", exc.msg) from None
            yield item
            pos = end
            if pos > _READ:
                lines_before += buf.count("\n", 0, pos)
                buf, pos = buf[pos:], 0
