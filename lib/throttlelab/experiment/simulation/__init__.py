"""Simulated experiments: a backend drawing runs from a known curve, synthetic containers."""
