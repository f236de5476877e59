"""The experiment backends by name: each registers itself from its own package; this module imports those packages.

The sweep (:mod:`throttlelab.experiment.sweeps`) knows backends only through the
:class:`~throttlelab.experiment.sweeps.backends.Backend` protocol and takes an
instance; the backend packages (``local_cgroup``, ``kubernetes``, ``simulation``)
import the sweep's types and call
:func:`~throttlelab.experiment.sweeps.backends.register_backend` for themselves.
Here, at the top of the experiment layer, the imports go one way: this module
imports the backends (inside :func:`backends`, so that importing it stays cheap),
nothing below imports it.

Example
-------
>>> sorted(backend_names())
['kubernetes', 'local', 'simulated']
>>> get_backend("simulated").name
'simulated'
"""

from __future__ import annotations

from collections.abc import Callable

from throttlelab.experiment.sweeps.backends import Backend, registered_backends


def backends() -> dict[str, Callable[[], Backend]]:
    """Every backend's factory by name (importing the backend modules registers them)."""
    import throttlelab.experiment.kubernetes.kube_backend  # noqa: F401  (registers "kubernetes")
    import throttlelab.experiment.local_cgroup.local_backend  # noqa: F401  (registers "local")
    import throttlelab.experiment.simulation.simulated_backend  # noqa: F401  (registers "simulated")

    return registered_backends()


def backend_names() -> list[str]:
    """Names of the backends."""
    return list(backends())


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
