"""The real one-node cluster of ``scripts/cluster`` for the ``node`` tests.

:func:`bring_up` reuses a running cluster or starts one *attached* to the test
process (it stops when pytest ends, even by SIGKILL: the supervisor gets
SIGTERM through ``PR_SET_PDEATHSIG`` and removes everything).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
CLUSTER_DIR = REPO / "scripts" / "cluster"
if str(CLUSTER_DIR) not in sys.path:
    sys.path.insert(0, str(CLUSTER_DIR))

from tlnode import cli, leftovers, prereq  # noqa: E402
from tlnode.layout import BUSYBOX_IMAGE, NAMESPACE, NODE_NAME, Layout  # noqa: E402
from tlnode.procs import pid_alive  # noqa: E402

__all__ = ["BUSYBOX_IMAGE", "NAMESPACE", "NODE_NAME", "Node", "bring_up", "cli", "leftovers", "pid_alive"]


@dataclass
class Node:
    """A ready cluster as the tests see it."""

    layout: Layout
    kubeconfig: Path
    runner_kubeconfig: Path
    prometheus: str
    owned: bool
    down: bool = False


def bring_up() -> tuple[Node | None, str]:
    """The running cluster, or a new attached one; ``(None, why)`` when this machine cannot run it."""
    layout = Layout.default()
    r = cli.running(layout)
    if r is None:
        problems = prereq.problems(layout)
        if problems:
            return None, problems[0]
        try:
            r = cli.up(layout, attach=True, say=lambda msg: print(msg, file=sys.stderr))
        except cli.ClusterError as exc:
            raise RuntimeError(f"cluster-up failed: {exc}") from None
    return Node(layout=layout, kubeconfig=r.kubeconfig, runner_kubeconfig=r.runner_kubeconfig,
                prometheus=r.prometheus, owned=r.started_here), ""
