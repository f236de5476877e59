"""Latency experiments: the target service, the load generator, contention sweeps."""
