"""Ingest layer: input formats -> canonical polars tables (see :mod:`throttlelab.tables`)."""
