"""Analysis layer: scaling fits, dead zones, thread counts, contention, concurrency, capacity.

Functions take canonical tables and return frozen result dataclasses
(:mod:`throttlelab.results`).
"""
