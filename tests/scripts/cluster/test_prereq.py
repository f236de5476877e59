"""Missing prerequisites: one line each, saying what and how to fix it."""

from __future__ import annotations

import socket

from tlnode import prereq


def test_missing_binaries_and_builds_are_named_with_the_fix(layout, monkeypatch):
    monkeypatch.setattr(prereq.shutil, "which", lambda cmd: None if cmd == "containerd" else f"/usr/bin/{cmd}")
    out = prereq.problems(layout, check_ports=False)
    assert any(p.startswith("`containerd` not found (Debian package containerd)") and "make node-tools" in p
               for p in out), out
    assert any("kubelet not built: run `make control-plane`" in p for p in out), out
    assert all("\n" not in p for p in out)


def test_a_port_in_use_is_reported_with_its_name(layout):
    with socket.socket() as s:
        s.bind(("127.0.0.1", layout.ports.prometheus))
        s.listen()
        out = [p for p in prereq.problems(layout) if "in use" in p]
    assert len(out) == 1 and f"port {layout.ports.prometheus} (prometheus)" in out[0]
    assert "THROTTLELAB_CLUSTER_PORT_BASE" in out[0]
