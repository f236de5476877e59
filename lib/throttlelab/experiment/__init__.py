"""Experiment layer: run CPU-limit x thread-count sweeps and latency experiments, and record them.

Subpackages, each entered through its face (its ``__init__`` lists the names used outside it; this package
imports nothing heavy), each importing only those listed above it:

``sweeps``        specs, plans, the backend protocol, the run store and the loop that runs a sweep on a backend
``local_cgroup``  the local backend: CFS-limited cgroups on this machine, workloads, sampler, noisy neighbour,
                  the load generator
``simulation``    the simulated backend and synthetic container series
``kubernetes``    the Kubernetes backend: each run a Pod
``latency``       latency experiments: the target service, contention x rate sweeps (local or on a cluster)

Modules: ``registry`` (each backend's factory, by name; it imports them when called), ``sweep_cli``
(``throttlelab sweep``), ``stores`` (the analysis layer's readers of the run stores).  The knee, the dead-zone
rule and the noise prior the adaptive design shares with the analysis are in :mod:`throttlelab.stats`.
"""
