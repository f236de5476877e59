"""The experiment backends by name: one plain mapping from each backend's block to its factory, loaded on first use.

The backends are named once, in :data:`~throttlelab.experiment.sweeps.spec_file.BACKENDS` (name -> the model of
its block in a spec), which the spec's ``backend`` choices derive from.  The sweep package sits below the backend
packages (``local_cgroup``, ``kubernetes``, ``simulation`` import its run plans and its
:class:`~throttlelab.experiment.sweeps.backends.Backend` protocol), so that mapping cannot hold their code; here,
at the top of the experiment layer, :data:`FACTORIES` gives each block's model the factory of its backend.  The
factories import their backend when called, so that importing this module (``throttlelab --help``) stays cheap;
nothing registers itself as a side effect of an import.

Example
-------
>>> backend_names()
['local', 'kubernetes', 'simulated']
>>> get_backend("simulated").name
'simulated'
"""

from __future__ import annotations

from collections.abc import Callable

from throttlelab.experiment.sweeps import BACKENDS, Backend, KubernetesOptions, LocalOptions, SimulatedOptions


def _local() -> Backend:
    from throttlelab.experiment.local_cgroup import LocalBackend

    return LocalBackend()


def _kubernetes() -> Backend:
    from throttlelab.experiment.kubernetes import KubernetesBackend

    return KubernetesBackend()


def _simulated() -> Backend:
    from throttlelab.experiment.simulation import SimulatedBackend

    return SimulatedBackend()


#: The model of a backend's block in a spec -> a zero-argument factory of that backend.
FACTORIES: dict[type, Callable[[], Backend]] = {LocalOptions: _local, KubernetesOptions: _kubernetes,
                                                SimulatedOptions: _simulated}


def backends() -> dict[str, Callable[[], Backend]]:
    """Every backend's factory by name, in the order of :data:`~throttlelab.experiment.sweeps.spec_file.BACKENDS`."""
    return {name: FACTORIES[block] for name, block in BACKENDS.items()}


def backend_names() -> list[str]:
    """Names of the backends."""
    return list(BACKENDS)


def get_backend(name: str) -> Backend:
    """A fresh instance of the backend named ``name``.

    Raises
    ------
    KeyError
        For an unknown name (the message lists the known ones).
    """
    known = backends()
    try:
        factory = known[name]
    except KeyError:
        raise KeyError(f"unknown backend {name!r}; known: {', '.join(known)}") from None
    return factory()
