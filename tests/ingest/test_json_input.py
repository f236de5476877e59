"""Tests of throttlelab.ingest.json_input: JSON files with errors that name the line."""

from __future__ import annotations

import gzip

import pytest

from throttlelab.errors import InputError
from throttlelab.ingest.json_input import load_json


def test_plain_and_gzipped_json(tmp_path):
    (tmp_path / "a.json").write_text('{"a": [1, 2]}')
    (tmp_path / "b.json.gz").write_bytes(gzip.compress(b'{"b": 3}'))
    assert load_json(tmp_path / "a.json") == {"a": [1, 2]}
    assert load_json(tmp_path / "b.json.gz") == {"b": 3}


def test_invalid_json_names_the_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n  "a": 1,\n  "b": ,\n}\n')
    with pytest.raises(InputError) as err:
        load_json(path)
    assert err.value.line == 3 and err.value.reason == "invalid JSON"
    assert str(err.value).startswith(f"{path}:3: invalid JSON")


def test_empty_and_non_utf8(tmp_path):
    (tmp_path / "e.json").write_text(" \n")
    with pytest.raises(InputError, match="empty file"):
        load_json(tmp_path / "e.json")
    (tmp_path / "l.json").write_bytes(b'{"a": "\xff"}')
    with pytest.raises(InputError, match="not UTF-8 JSON"):
        load_json(tmp_path / "l.json")
