"""Checks for what a study run ``requires`` (a writable cgroup, ffmpeg, Go, a cluster).

Each check returns ``(available, reason)``; an unmet requirement skips the run
and the index says why.
"""

from __future__ import annotations

import importlib
import shutil
from typing import Callable

Check = Callable[[], tuple[bool, str]]


def _local_cgroup() -> tuple[bool, str]:
    try:
        mod = importlib.import_module("throttlelab.experiment.local_cgroup.local_backend")
        return mod.local_backend_available()
    except ImportError as exc:
        return False, f"local backend not available ({exc})"


def _ffmpeg() -> tuple[bool, str]:
    if shutil.which("ffmpeg"):
        return True, "ffmpeg on PATH"
    try:
        import imageio_ffmpeg

        return True, imageio_ffmpeg.get_ffmpeg_exe()
    except Exception as exc:  # the wheel raises RuntimeError when it has no binary
        return False, f"no ffmpeg on PATH and none from imageio-ffmpeg ({exc})"


def _chromium() -> tuple[bool, str]:
    path = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    return (True, path) if path else (False, "no chromium on PATH (make system-tools installs it)")


def _go() -> tuple[bool, str]:
    for path in (shutil.which("go"), "/usr/local/go/bin/go"):
        if path and shutil.which(path):
            return True, path
    return False, "no Go toolchain (go on PATH or /usr/local/go/bin/go) to build the Go workloads"


CHECKS: dict[str, Check] = {"local_cgroup": _local_cgroup, "ffmpeg": _ffmpeg, "chromium": _chromium, "go": _go}


def check(requirements: tuple[str, ...] | list[str]) -> tuple[bool, str]:
    """All requirements met? Otherwise the first unmet one's reason."""
    for name in requirements:
        fn = CHECKS.get(name)
        if fn is None:
            return False, f"unknown requirement {name!r} (known: {', '.join(CHECKS)})"
        ok, reason = fn()
        if not ok:
            return False, f"{name}: {reason}"
    return True, ""
