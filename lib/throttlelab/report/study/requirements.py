"""Checks for what a study run ``requires`` (a writable cgroup, ffmpeg, Go, a cluster, a Prometheus to read).

Each check returns ``(available, reason)``; an unmet requirement skips the run
and the index says why. Checks in :data:`PARAMETER_CHECKS` look at the run's own parameters.
"""

from __future__ import annotations

import shutil
from typing import Callable

Check = Callable[[], tuple[bool, str]]


def _local_cgroup() -> tuple[bool, str]:
    try:
        from throttlelab.experiment.local_cgroup.local_backend import local_backend_available

        return local_backend_available()
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



def _node_cluster() -> tuple[bool, str]:
    """The one-node cluster of ``make cluster-up`` is ready (its supervisor alive)."""
    import json
    import os
    from pathlib import Path

    cache = Path(os.environ.get("THROTTLELAB_CACHE") or Path.home() / ".cache" / "throttlelab")
    state = Path(os.environ.get("THROTTLELAB_CLUSTER_DIR") or cache / "cluster")
    try:
        st = json.loads((state / "status.json").read_text())
    except (OSError, ValueError):
        return False, "no one-node cluster runs here (start it with `make cluster-up`)"
    pid = int(st.get("pid", 0))
    if st.get("state") != "ready" or not pid or not Path(f"/proc/{pid}").exists():
        return False, f"the one-node cluster is not ready (state {st.get('state')!r}): run `make cluster-up`"
    return True, st.get("kubeconfig", "")



def _prometheus(parameters: dict) -> tuple[bool, str]:
    """A live Prometheus to read: the run's ``prometheus_url`` parameter is set."""
    url = str(parameters.get("prometheus_url") or "")
    if url:
        return True, url
    return False, "no Prometheus given: run it with -p prometheus_url http://HOST:9090"


CHECKS: dict[str, Check] = {"local_cgroup": _local_cgroup, "ffmpeg": _ffmpeg, "chromium": _chromium, "go": _go,
                            "node_cluster": _node_cluster}
PARAMETER_CHECKS: dict[str, Callable[[dict], tuple[bool, str]]] = {"prometheus": _prometheus}


def check(requirements: tuple[str, ...] | list[str], parameters: dict | None = None) -> tuple[bool, str]:
    """All requirements met (given the run's ``parameters``)? Otherwise the first unmet one's reason."""
    for name in requirements:
        if name in PARAMETER_CHECKS:
            ok, reason = PARAMETER_CHECKS[name](parameters or {})
            if not ok:
                return False, f"{name}: {reason}"
            continue
        fn = CHECKS.get(name)
        if fn is None:
            return False, f"unknown requirement {name!r} (known: {', '.join([*CHECKS, *PARAMETER_CHECKS])})"
        ok, reason = fn()
        if not ok:
            return False, f"{name}: {reason}"
    return True, ""
