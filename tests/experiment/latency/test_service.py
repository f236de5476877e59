"""The target service's command line (``python -m throttlelab.experiment.latency.service``)."""

from __future__ import annotations

import subprocess
import sys


def test_service_refuses_non_loopback_bind():
    out = subprocess.run([sys.executable, "-m", "throttlelab.experiment.latency.service", "--host", "0.0.0.0"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "non-loopback" in out.stdout
