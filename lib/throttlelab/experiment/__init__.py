"""Experiment layer: backends (local cgroup, Kubernetes), workloads, sweep runner, run store."""
