"""Reading a whole-file JSON input with errors that name the file and line."""

from __future__ import annotations

import json

from throttlelab.errors import InputError
from throttlelab.ingest import lines as lines_mod


def load_json(path) -> object:
    """Parse a JSON file; empty, non-UTF-8 or invalid JSON raise :class:`InputError` with the line."""
    data = lines_mod.read_bytes(path)
    if not data.strip():
        raise InputError(path, None, "empty file")
    try:
        return json.loads(data)
    except UnicodeDecodeError:
        raise InputError(path, None, "not UTF-8 JSON") from None
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, "invalid JSON", exc.msg) from None
