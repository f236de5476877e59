"""Which input files this process read: readers record them, a report lists them with their checksums.

The readers of every layer (bundled published tables, runs tables and run stores, monitor logs and other
formats, OpenMetrics exports, a live Prometheus) call :func:`record` with what they open. A notebook's
``tn.start`` points the log at a file in its output folder (:func:`write_to`), rewritten on every record,
so the study runner, in another process, reads what that notebook actually read (:func:`read`).
"""

from __future__ import annotations

import json
from pathlib import Path

_state: dict = {"inputs": [], "sink": None}
#: Name of the file a notebook's output folder gets (``inputs_read.json``).
FILE_NAME = "inputs_read.json"


def record(source: str | Path) -> None:
    """Note that ``source`` was read: a file or a folder (as a resolved path), or a URL (as given).

    Recording the same source twice keeps one entry; the log file, when set, is rewritten at once.
    """
    text = str(source)
    if "://" not in text:
        text = str(Path(text).expanduser().resolve())
    if text in _state["inputs"]:
        return
    _state["inputs"].append(text)
    if _state["sink"] is not None:
        _write(_state["sink"])


def recorded() -> list[str]:
    """What this process recorded since the last :func:`reset`, in reading order."""
    return list(_state["inputs"])


def reset() -> None:
    """Forget what was recorded (a notebook run starts afresh); stop writing to any log file."""
    _state.update(inputs=[], sink=None)


def write_to(folder: str | Path) -> Path:
    """Keep ``folder/inputs_read.json`` up to date with every record from now on (written empty at once)."""
    path = Path(folder) / FILE_NAME
    _state["sink"] = path
    _write(path)
    return path


def read(folder: str | Path) -> list[str] | None:
    """The sources a notebook recorded in ``folder``; ``None`` when it kept no log (or the log is unreadable)."""
    try:
        doc = json.loads((Path(folder) / FILE_NAME).read_text())
    except (OSError, ValueError):
        return None
    return [str(x) for x in doc.get("inputs", [])] if isinstance(doc, dict) else None


def _write(path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"inputs": _state["inputs"]}, indent=1) + "\n")
    tmp.replace(path)
