"""The Prometheus HTTP API's answers decoded: typed envelopes, and a range answer's points parsed in one call.

Every answer that is not the API's JSON, or a range answer whose points are not
``[time, "value"]`` pairs, raises :class:`PrometheusError`, a
:class:`~throttlelab.errors.ThrottlelabError` printed as one line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import msgspec
import numpy as np

from throttlelab.errors import ThrottlelabError


class PrometheusError(ThrottlelabError):
    """The server could not be reached or refused a query (one line, names the URL)."""


@dataclass
class Series:
    """One range-query series: its labels and float ``times`` (unix s) and ``values``."""

    labels: dict
    times: np.ndarray
    values: np.ndarray


class Sample(msgspec.Struct):
    """One series of a query answer; ``values`` for a matrix, ``value`` for a vector."""

    metric: dict[str, str] = {}
    values: msgspec.Raw = msgspec.Raw(b"[]")  # ``[[t, "v"], ...]``, parsed by polars (:func:`matrix_points`)
    value: tuple[float, str] | None = None


class Data(msgspec.Struct):
    resultType: str = ""
    result: list[Sample] = []
    stats: dict | None = None  # with ``stats=all``: ``samples.peakSamples``, ``samples.totalQueryableSamples``


class Answer(msgspec.Struct):
    """The API's envelope, decoded straight into typed fields (about 2.5x faster than ``json.loads``
    on a large range answer, which dominated the client's time)."""

    status: str = ""
    data: Data | None = None
    errorType: str | None = None
    error: str | None = None


_DECODE_ANSWER = msgspec.json.Decoder(Answer)


class _SeriesAnswer(msgspec.Struct):
    """The envelope of ``/api/v1/series``: the label sets of the series."""

    status: str = ""
    data: list[dict[str, str]] | None = None


DECODE_SERIES = msgspec.json.Decoder(_SeriesAnswer)
def matrix_points(raws: list) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each series' ``values`` (the raw JSON ``[[t, "v"], ...]``) as (times, values) arrays, all parsed in one call
    of polars' CSV reader (the API writes values as strings: ``"0.25"``, ``"NaN"``, ``"+Inf"``): one ``t,v`` line per
    point, about 3x faster than numpy's text parser, with the same correctly rounded floats.

    >>> [(t.tolist(), v.tolist()) for t, v in matrix_points([b'[[1,"0.5"],[2.5,"NaN"]]', b'[]'])]
    [([1.0, 2.5], [0.5, nan]), ([], [])]
    """
    texts = []
    for r in raws:
        t = bytes(r).translate(None, b'" \t\r\n')
        if not (t.startswith(b"[") and t.endswith(b"]")) or (len(t) > 2 and not (t[:2] == b"[[" and t[-2:] == b"]]")):
            raise PrometheusError(f"range answer: a series' values are {t[:40]!r}..., expected [[time, \"value\"], ...]")
        texts.append(t[2:-2].replace(b"],[", b"\n"))
    counts = [t.count(b"\n") + 1 if t else 0 for t in texts]
    if not any(counts):
        return [(np.empty(0), np.empty(0)) for _ in texts]
    import polars as pl

    try:
        df = pl.read_csv(b"\n".join(t for t in texts if t), has_header=False, schema={"t": pl.Float64, "v": pl.Float64})
    except pl.exceptions.PolarsError as exc:
        raise PrometheusError(f"range answer: a point is not [time, \"value\"] ({str(exc).splitlines()[0]})") from None
    if df.null_count().sum_horizontal().item():
        raise PrometheusError('range answer: a point without a time or value, expected [time, "value"]')
    if df.height != sum(counts):
        raise PrometheusError(f'range answer: {df.height} points, expected {sum(counts)} [time, "value"] pairs')
    times, values = df["t"].to_numpy(writable=True), df["v"].to_numpy(writable=True)
    out, at = [], 0
    for n in counts:
        out.append((times[at:at + n], values[at:at + n]))
        at += n
    return out


def decode_answer(body: bytes) -> Answer | None:
    """The typed envelope; for an answer of another shape (a scalar or string result) its status,
    error and result type with no result; ``None`` when the body is not JSON at all."""
    try:
        return _DECODE_ANSWER.decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError):
        pass
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    if not isinstance(doc, dict):
        return None
    data = doc.get("data")
    rt = data.get("resultType", "") if isinstance(data, dict) else ""
    return Answer(status=str(doc.get("status", "")), data=Data(resultType=str(rt)) if isinstance(data, dict) else None,
                   errorType=doc.get("errorType"), error=doc.get("error"))
