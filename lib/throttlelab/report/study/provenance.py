"""Provenance of a report: what produced it, on what, from which inputs.

Collected once per study by the runner and embedded in every report (and in
``provenance.json`` next to it): study and parameters, git commit, package
versions, Linux kernel and cgroup version, CPU model, and SHA-256 checksums of
the inputs the notebook actually read (what its readers recorded, see
:mod:`throttlelab.input_log`, and every parameter value that names an existing
file); a live server is listed by its URL, with no checksum.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

PACKAGES = ("throttlelab", "polars", "altair", "scipy", "numpy", "papermill", "nbconvert", "kubernetes", "vl-convert-python")


def git_commit(repo: Path) -> str | None:
    """Commit of ``repo`` (with ``-dirty`` when the tree has changes), or None."""
    try:
        sha = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        if sha.returncode:
            return None
        try:  # the notebooks' clean filter runs once per notebook on a fresh clone: status can take seconds
            dirty = subprocess.run(
                ["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
                capture_output=True, text=True, timeout=60,
            ).stdout.strip()
        except subprocess.TimeoutExpired:
            dirty = ""  # the commit is still known; only whether the tree is clean is not
        return sha.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None


def package_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


def cgroup_version(root: Path = Path("/sys/fs/cgroup")) -> str:
    """'v2' (unified with a cpu controller), 'v1', 'hybrid (v1 cpu)', or 'none'."""
    controllers = root / "cgroup.controllers"
    if controllers.exists():
        return "v2" if "cpu" in controllers.read_text().split() else "v2 (no cpu controller)"
    if (root / "cpu").exists() or (root / "cpu,cpuacct").exists():
        return "hybrid (v1 cpu, v2 unified)" if (root / "unified").exists() else "v1"
    return "none"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


#: What a live source (a URL) gets in place of a checksum.
LIVE = "live server: no checksum"


def input_checksums(paths: list[Path | str], root: Path) -> dict[str, str]:
    """``{relative path: sha256}`` of existing files (folders: each file inside, at most 200); a URL maps to
    :data:`LIVE`."""
    out: dict[str, str] = {}
    for p in paths:
        if isinstance(p, str) and "://" in p:
            out[p] = LIVE
            continue
        p = Path(p)
        if not p.exists():
            continue
        files = sorted(x for x in p.rglob("*") if x.is_file()) if p.is_dir() else [p]
        for f in files[:200]:
            try:
                key = str(f.resolve().relative_to(root.resolve()))
            except ValueError:
                key = str(f)
            out[key] = sha256(f)
    return out


def machine() -> dict[str, Any]:
    """Facts about the machine the study ran on."""
    return {
        "hostname": platform.node(),
        "kernel": platform.release(),
        "cgroup": cgroup_version(),
        "cpu_model": cpu_model(),
        "cpus": os.cpu_count(),
        "python_executable": sys.executable,
    }


def collect(repo: Path) -> dict[str, Any]:
    """Study-wide provenance (per-run parameters and inputs are added by the runner)."""
    return {"git_commit": git_commit(repo), "packages": package_versions(), "machine": machine()}
