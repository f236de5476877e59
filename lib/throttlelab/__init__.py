"""throttlelab: reproducible analysis of Kubernetes CPU limits.

Layers, imported in one direction only::

    tables, errors, results, result_tables, config_file  (shared vocabulary)
      -> ingest      formats -> tidy polars frames
      -> experiment  backends (local cgroup, Kubernetes, simulated), workloads, sweeps, run store
      -> analysis    scaling fits, dead zones, thread counts, latency, capacity, right-sizing
      -> report      altair charts, notebooks' helpers, offline HTML, studies, index
      -> cli         the ``throttlelab`` command

Inside a layer, concept packages are entered through their faces (each
package's ``__init__`` lists its public names) and import one way too.
``tests/test_layers.py`` enforces both; ``docs/architecture.md`` is the map.
"""

__version__ = "0.1.0"
