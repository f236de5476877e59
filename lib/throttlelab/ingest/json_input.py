"""Reading a whole-file JSON input with errors that name the file and line."""

from __future__ import annotations

import json

from throttlelab.errors import InputError
from throttlelab.ingest.input_files import read_input


def load_json(path) -> object:
    """Parse a JSON file (compressed or not); empty, non-UTF-8 or invalid JSON raise :class:`InputError` with the line."""
    data = read_input(path)  # gzip/zstd/xz decompressed
    if not data.strip():
        raise InputError(path, None, "empty file")
    try:
        return json.loads(data)
    except UnicodeDecodeError:
        raise InputError(path, None, "not UTF-8 JSON") from None
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, "invalid JSON", exc.msg) from None
