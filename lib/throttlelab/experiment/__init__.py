"""Experiment layer: run CPU-limit x thread-count sweeps and latency experiments, and record them.

Subpackages (this package imports nothing heavy; ``sweeps.adaptive``, ``kubernetes`` and
``latency.service`` have faces, the others are imported module by module):

``sweeps``            specs, plans, the backend registry, the run store and the loop that runs a sweep
``sweeps.adaptive``   the adaptive design: which run next, and why
``local_cgroup``      the local backend: CFS-limited cgroups on this machine, workloads, sampler, noisy neighbour
``kubernetes``        the Kubernetes backend: each run a Pod
``latency``           latency experiments: the target service, the load generator, contention sweeps
``simulation``        the ``simulated`` backend (runs from a known curve) and synthetic container series
``stores``            the public readers of the run stores (the analysis layer's only door into this layer)
"""
