"""Fixtures for the experiment tests: the real cgroup (or a skip saying why) and the v2 fixture."""

from __future__ import annotations

import shutil
import signal
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture(scope="session")
def local_available():
    from throttlelab.experiment.local_cgroup.local_backend import local_backend_available

    return local_backend_available()


@pytest.fixture
def cgroup_layout(local_available):
    """This machine's writable CPU cgroup layout; skips with the reason when there is none."""
    ok, reason = local_available
    if not ok:
        pytest.skip(f"no writable CPU cgroup here: {reason}")
    from throttlelab.experiment.local_cgroup.cgroup_layout import detect_layout

    return detect_layout()


@pytest.fixture
def v2_root(tmp_path) -> Path:
    """A copy of tests/fixtures/cgroup_v2 with @ROOT@ substituted in proc/mounts."""
    root = tmp_path / "cg2"
    shutil.copytree(FIXTURES / "cgroup_v2", root)
    mounts = root / "proc" / "mounts"
    mounts.write_text(mounts.read_text().replace("@ROOT@", str(root)))
    return root


@pytest.fixture
def v2_layout(v2_root):
    from throttlelab.experiment.local_cgroup.cgroup_layout import detect_layout

    return detect_layout(mounts=v2_root / "proc" / "mounts", self_cgroup=v2_root / "proc" / "self_cgroup",
                         simulated=True)


@pytest.fixture(scope="session", autouse=True)
def _remove_our_owner_cgroup():
    """Leave no cgroup behind: remove this test process's owner folder at the end."""
    yield
    from throttlelab.errors import EnvironmentProblem
    from throttlelab.experiment.local_cgroup.cgroup_files import remove_tree
    from throttlelab.experiment.local_cgroup.cgroup_layout import detect_layout
    from throttlelab.experiment.local_cgroup.cgroup_orphans import owner_name

    try:
        layout = detect_layout()
    except EnvironmentProblem:
        return
    for parent in layout.parents:
        d = parent / owner_name()
        if d.exists():
            remove_tree(d, False)


@pytest.fixture
def ctrl_c_raises():
    """Python's own Ctrl-C handler for the test, whatever the test run inherited.

    A shell starting ``make test`` in the background (``make test &``, nohup) ignores SIGINT for it,
    and Python then raises no KeyboardInterrupt: a test of what Ctrl-C does needs it back."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
