"""Tests of throttlelab.experiment.registry: every backend registers itself from its own package, found by name."""

from __future__ import annotations

import doctest
import subprocess
import sys

import pytest

from throttlelab.experiment import registry
from throttlelab.experiment.registry import backend_names, get_backend
from throttlelab.experiment.sweeps.backends import Backend


def test_the_builtin_backends_and_an_unknown_name():
    assert set(backend_names()) == {"local", "kubernetes", "simulated"}
    for name in backend_names():
        b = get_backend(name)
        assert isinstance(b, Backend) and b.name == name
    with pytest.raises(KeyError, match="unknown backend 'nope'; known: "):
        get_backend("nope")


def test_importing_the_registry_imports_no_backend():
    code = ("import sys; import throttlelab.experiment.registry; "
            "print([m for m in sys.modules if m.startswith('throttlelab.experiment.') and 'backend' in m "
            "and not m.endswith('sweeps.backends')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr


def test_the_examples_hold():
    result = doctest.testmod(registry)
    assert result.attempted >= 2 and result.failed == 0
