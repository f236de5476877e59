"""Experiment layer: run CPU-limit x thread-count sweeps and latency experiments, and record them.

Subpackages (import their modules directly; this package imports nothing heavy):

``sweeps``        specs, plans, the backend registry, the run store and the loop that runs a sweep
``local_cgroup``  the local backend: CFS-limited cgroups on this machine, workloads, sampler, noisy neighbour
``kubernetes``    the Kubernetes backend: each run a Pod
``latency``       latency experiments: the target service, the load generator, contention sweeps
"""
