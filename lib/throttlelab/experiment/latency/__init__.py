"""Latency experiments: the target service and contention x rate sweeps (the load generator is in local_cgroup)."""
