"""scripts/cluster's package ``tlnode`` on the path, and a Layout under a temporary folder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

CLUSTER_DIR = Path(__file__).resolve().parents[3] / "scripts" / "cluster"
if str(CLUSTER_DIR) not in sys.path:
    sys.path.insert(0, str(CLUSTER_DIR))


@pytest.fixture
def layout(tmp_path):
    from tlnode.layout import Layout, Ports

    return Layout(state=tmp_path / "cluster", bins=tmp_path / "bin", ports=Ports.from_base(16540))
