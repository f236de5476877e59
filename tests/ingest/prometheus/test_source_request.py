"""A request for per-container CPU: its durations and times checked when it is made, and read as read_source reads it."""

from __future__ import annotations

import doctest
from pathlib import Path

import numpy as np
import pytest

import throttlelab.ingest.prometheus.source_request as mod
from throttlelab.errors import ThrottlelabError
from throttlelab.ingest.prometheus import SourceRequest, read_request, read_source

SAMPLE = Path(__file__).resolve().parents[3] / "data" / "published" / "samples" / "shop_namespace.om.gz"


def test_doctests_run():
    assert doctest.testmod(mod).failed == 0


def test_durations_and_times_as_written_and_a_bad_one_refused_when_the_request_is_made():
    r = SourceRequest(prometheus_url="http://127.0.0.1:9090", since="1h30m", step="2m", end="2026-01-01T00:00:00Z")
    assert (r.window_s, r.step_s) == (5400.0, 120.0)
    assert (SourceRequest().window_s, SourceRequest(since="", step="").step_s) == (None, None)  # empty: the default
    for kw, what in ((dict(since="2 days"), "not a duration"), (dict(step="fast"), "not a duration"),
                     (dict(end="tomorrow"), "not a time")):
        with pytest.raises(ThrottlelabError, match=what):
            SourceRequest(openmetrics_path=str(SAMPLE), **kw)


def test_a_request_reads_what_read_source_reads_and_keeps_the_request():
    request = SourceRequest(openmetrics_path=str(SAMPLE), read_directly=True, namespace="shop", since="12h", selector="",
                            gauges={"kube_horizontalpodautoscaler_info": "last"})
    read = read_request(request)
    fetched, source, how = read_source(openmetrics_path=str(SAMPLE), use_prometheus=False, namespace="shop",
                                       window_s=12 * 3600, gauges={"kube_horizontalpodautoscaler_info": "last"})
    assert read.request is request and (read.source, read.how) == (source, how)
    assert (read.fetched.start, read.fetched.end, read.fetched.step_s) == (fetched.start, fetched.end, fetched.step_s)
    assert [c.key for c in read.fetched.containers] == [c.key for c in fetched.containers]
    assert all(np.array_equal(a.usage, b.usage, equal_nan=True) for a, b in zip(read.fetched.containers, fetched.containers))
    assert read.fetched.gauges == fetched.gauges and list(read.fetched.gauges) == ["kube_horizontalpodautoscaler_info"]
    assert [w.key for w in read.fetched.workloads] == [w.key for w in fetched.workloads]
