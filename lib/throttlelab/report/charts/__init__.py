"""Altair chart builders, one module per topic. Each returns an ``alt.Chart``."""
