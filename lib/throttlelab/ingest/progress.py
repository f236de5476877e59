"""A progress bar (tqdm, on standard error) for reading large inputs on a terminal."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

#: Inputs larger than this (bytes on disk) get a bar when standard error is a terminal.
PROGRESS_MIN_BYTES = 50 * 10**6


def wants_progress(size: int, progress: bool | None = None) -> bool:
    """``progress`` if given, else: standard error is a terminal and ``size`` > :data:`PROGRESS_MIN_BYTES`."""
    if progress is not None:
        return progress
    try:
        tty = sys.stderr.isatty()
    except (AttributeError, ValueError):
        tty = False
    return tty and size > PROGRESS_MIN_BYTES


@contextmanager
def byte_progress(path: str | Path, size: int, progress: bool | None = None) -> Iterator[Callable[[int], None]]:
    """Yields ``update(bytes_done)``; draws a bar only when :func:`wants_progress`."""
    if not wants_progress(size, progress):
        yield lambda done: None
        return
    from tqdm import tqdm

    bar = tqdm(total=size, unit="B", unit_scale=True, unit_divisor=1024, desc=Path(path).name, file=sys.stderr,
               leave=False, mininterval=0.25)
    state = {"done": 0}

    def update(done: int) -> None:
        if done > state["done"]:
            bar.update(done - state["done"])
            state["done"] = done

    try:
        yield update
    finally:
        bar.close()
