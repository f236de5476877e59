"""The local cgroup backend: CPU cgroups on this machine, workloads, the sampler, neighbours, the load generator."""
