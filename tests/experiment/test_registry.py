"""Tests of throttlelab.experiment.registry: the backends by name, one plain mapping, each loaded on first use."""

from __future__ import annotations

import doctest
import subprocess
import sys

import pytest

from throttlelab.experiment import registry
from throttlelab.experiment.registry import FACTORIES, backend_names, get_backend
from throttlelab.experiment.sweeps.backends import Backend
from throttlelab.experiment.sweeps.spec import SweepSpec
from throttlelab.experiment.sweeps.spec_file import BACKENDS


def test_the_builtin_backends_and_an_unknown_name():
    assert set(backend_names()) == {"local", "kubernetes", "simulated"}
    for name in backend_names():
        b = get_backend(name)
        assert isinstance(b, Backend) and b.name == name
    with pytest.raises(KeyError, match="unknown backend 'nope'; known: "):
        get_backend("nope")


def test_each_backend_is_named_once_and_the_spec_offers_exactly_those():
    assert list(BACKENDS) == backend_names() and set(FACTORIES) == set(BACKENDS.values())
    assert len(set(BACKENDS.values())) == len(BACKENDS)  # one block model per backend
    assert set(SweepSpec.model_fields["backend"].annotation.__args__) == set(BACKENDS)
    for name, block in BACKENDS.items():  # the spec's block of each backend is that backend's model
        assert block in SweepSpec.model_fields[name].annotation.__args__


def test_nothing_registers_by_importing_a_backend():
    """The mapping is plain: importing a backend's module adds nothing (no registration as a side effect)."""
    code = ("import throttlelab.experiment.registry as r, throttlelab.experiment.sweeps.backends as b; "
            "before = r.backends(); import throttlelab.experiment.simulation.simulated_backend; "
            "print(r.backends() == before, [n for n in dir(b) if 'regist' in n.lower()])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "True []", out.stdout + out.stderr


def test_importing_the_registry_imports_no_backend():
    code = ("import sys; import throttlelab.experiment.registry; "
            "print([m for m in sys.modules if m.startswith('throttlelab.experiment.') and 'backend' in m "
            "and not m.endswith('sweeps.backends')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr


def test_the_examples_hold():
    result = doctest.testmod(registry)
    assert result.attempted >= 2 and result.failed == 0
