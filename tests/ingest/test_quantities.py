"""Tests of throttlelab.ingest.quantities: Kubernetes quantities as polars expressions."""

from __future__ import annotations

import polars as pl

from throttlelab.ingest.quantities import cpu_cores, memory_bytes


def test_cpu_cores():
    s = pl.Series("q", ["250m", "1", "1.5", "500000u", "2000000000n", "x", "-1", "1e3", None, "3k"])
    got = pl.select(cpu_cores(pl.lit(s))).to_series().to_list()
    assert got == [0.25, 1.0, 1.5, 0.5, 2.0, None, None, None, None, None]


def test_memory_bytes():
    s = pl.Series("q", ["512Mi", "1Gi", "1000", "2k", "1.5Ki", "1M", "7Qi", "", "Mi"])
    got = pl.select(memory_bytes(pl.lit(s))).to_series().to_list()
    assert got == [512 * 2**20, 2**30, 1000, 2000, 1536, 10**6, None, None, None]
