"""throttlelab: reproducible analysis of Kubernetes CPU limits.

Layers, imported in one direction only::

    tables, errors, results  (shared vocabulary)
      -> ingest      formats -> tidy polars frames
      -> experiment  backends (local cgroup, Kubernetes), workloads, sweeps, run store
      -> analysis    scaling fits, dead zones, contention, concurrency, capacity
      -> report      altair charts, offline HTML, studies, index

``tests/test_layers.py`` enforces the direction.
"""

__version__ = "0.1.0"
