"""``throttlelab recommend --prometheus URL``: throttling-aware CPU requests and limits, one per workload container.

Reads usage, CFS throttling, requests and limits over ``--since`` from a
Prometheus (read-only HTTP API), or from a saved OpenMetrics export
(``--openmetrics FILE``), and prints a table, JSON, CSV or an HTML report.
The reading and the numbers are notebook 08's (a
:class:`~throttlelab.analysis.rightsizing.RightsizingRequest` read by
:func:`~throttlelab.ingest.prometheus.read_request`, recommended by
:func:`~throttlelab.analysis.rightsizing.rightsize_read`).
"""

from __future__ import annotations

import argparse
import sys

from throttlelab.core import KSM_POD_LABELS

FORMATS = ("table", "json", "csv", "html", "patch")
POLICIES = ("target", "none", "keep")


def add_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--prometheus", metavar="URL", help="Prometheus base URL, e.g. http://127.0.0.1:9090")
    src.add_argument("--openmetrics", metavar="FILE", help="read a saved OpenMetrics export instead of a server "
                     "(through a temporary local Prometheus when the 'prometheus' package is installed)")
    p.add_argument("--read-directly", action="store_true",
                   help="read an --openmetrics export without the temporary Prometheus")
    p.add_argument("--namespace", help="only this namespace (default: all)")
    p.add_argument("--selector", metavar="K=V[,K=V]", help=f"pods with these Kubernetes labels ({KSM_POD_LABELS}), "
                   "else series with these labels")
    p.add_argument("--since", help="window, ending now (or at --end): 14d, 36h, ... "
                   "(default: 14d on a server, the whole export for --openmetrics)")
    p.add_argument("--end", help="end of the window: unix seconds or ISO time "
                   "(default: the server's now, the export's last sample)")
    p.add_argument("--step", help="resolution of the usage series (default: the finest whole minute under 11,000 points)")
    p.add_argument("--format", default="table", choices=FORMATS,
                   help="output format (default table); patch: one strategic-merge patch per workload (YAML)")
    p.add_argument("-o", "--output", metavar="PATH", help="write here instead of stdout (html: default recommend.html)")
    p.add_argument("--throttle-target", type=float, default=0.05, metavar="RATIO",
                   help="largest acceptable predicted throttled-period ratio (default 0.05)")
    p.add_argument("--limit-policy", default="target", choices=POLICIES,
                   help="target: smallest limit meeting the target (default); none: requests only, no limit; "
                        "keep: keep the current limit")
    p.add_argument("--min-history", default="24h", help="workload containers with fewer pod-hours (summed over their "
                   "pods) get 'too little data' (default 24h)")
    p.add_argument("--bearer-token-file", metavar="FILE", help="file holding a bearer token")
    p.add_argument("--ca-file", metavar="FILE", help="CA bundle for the server's certificate")
    p.add_argument("--insecure-skip-tls-verify", action="store_true", help="do not verify the server's certificate")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per HTTP request (default 60)")
    p.epilog = "Basic auth: set PROMETHEUS_USERNAME and PROMETHEUS_PASSWORD. Exit status 2 on any error."


def run(args: argparse.Namespace) -> int:
    import time

    from throttlelab.analysis.rightsizing import RightsizingRequest
    from throttlelab.analysis.rightsizing import rightsize_read
    from throttlelab.errors import ThrottlelabError
    from throttlelab.ingest.prometheus import parse_duration, read_request

    if not 0 < args.throttle_target < 1:
        raise ThrottlelabError(f"--throttle-target {args.throttle_target}: expected a ratio between 0 and 1 (e.g. 0.05)")
    if args.namespace is not None and not args.namespace.strip():
        raise ThrottlelabError("--namespace '': expected a namespace name (leave --namespace out for every namespace)")
    if args.since is not None:
        parse_duration(args.since)  # a bad duration is a one-line error before anything is read
    request = RightsizingRequest(  # so is a bad --min-history, --end or --step
        prometheus_url=args.prometheus, openmetrics_path=args.openmetrics, read_directly=args.read_directly,
        since=args.since, end=args.end, namespace=args.namespace, selector=args.selector, step=args.step,
        bearer_token_file=args.bearer_token_file, ca_file=args.ca_file,
        insecure_skip_tls_verify=args.insecure_skip_tls_verify, timeout=args.timeout,
        throttle_target=args.throttle_target, limit_policy=args.limit_policy, min_history=args.min_history)
    t0 = time.perf_counter()
    result = rightsize_read(read_request(request))
    recs, fetched = result.recommendations, result.fetched
    took = time.perf_counter() - t0
    if args.format == "table" and not args.output:  # the terminal's width and colours
        from throttlelab.report.recommend import print_table

        table, reasons, header, footnote = table_parts(result)
        print_table(table, reasons, header=header, footnote=footnote)
        return 0
    text = render(result, args.format)
    if args.format in ("json", "csv"):  # no place for them in the data: say them beside it (patch and html show them)
        for note in result.notes:
            print(note, file=sys.stderr)
    if args.format == "html" and not args.output:
        args.output = "recommend.html"
    if args.output:
        from pathlib import Path

        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(text)
        print(f"wrote {args.output}: {len(recs)} workload containers ({took:.1f} s, {fetched.queries} queries)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def render(result, fmt: str, *, width: int = 120) -> str:
    """A :class:`~throttlelab.analysis.rightsizing.RightsizingRun` as ``table`` (plain, ``width``
    characters), ``json``, ``csv``, ``html`` or ``patch`` text."""
    import io
    import json

    from throttlelab.analysis.rightsizing import recommendations_frame
    from throttlelab.results import to_jsonable

    recs, settings = result.recommendations, result.settings
    if fmt == "json":
        return json.dumps(to_jsonable(recs), indent=2, allow_nan=False) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        recommendations_frame(recs).write_csv(buf)
        return buf.getvalue()
    if fmt == "patch":
        from throttlelab.report.recommend import patch_yaml

        return patch_yaml(recs, settings.limit_policy, source=result.source, notes=result.notes)
    if fmt == "html":
        from throttlelab.report.recommend import recommend_html

        return recommend_html(result)
    from throttlelab.report.recommend import table_text

    table, reasons, header, footnote = table_parts(result)
    return table_text(table, reasons, header=header, footnote=footnote, width=width)


def table_parts(result) -> tuple:
    """The decision frame, the reasons and the header, and the footnote of the terminal table."""
    from throttlelab.analysis.rightsizing import EXTRAPOLATED_NOTE, advice_sentences, decision_table, label

    recs, settings = result.recommendations, result.settings
    header = (f"{len(recs)} workload containers, {result.source} ({result.how}), window {result.window_text()}, "
              f"target {settings.throttle_target:.0%} throttled periods")
    return (decision_table(recs), [" ".join([f"{label(r)}: {r.reason}", *advice_sentences(r)]) for r in recs],
            "\n".join([header, *result.notes]), EXTRAPOLATED_NOTE)
