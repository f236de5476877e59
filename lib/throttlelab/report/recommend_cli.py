"""``throttlelab recommend --prometheus URL``: throttling-aware CPU requests and limits for running containers.

Reads usage, CFS throttling, requests and limits over ``--since`` from a
Prometheus (read-only HTTP API), or from a saved OpenMetrics export
(``--openmetrics FILE``), and prints a table, JSON, CSV or an HTML report.
"""

from __future__ import annotations

import argparse
import sys

FORMATS = ("table", "json", "csv", "html")
POLICIES = ("target", "none", "keep")


def add_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--prometheus", metavar="URL", help="Prometheus base URL, e.g. http://127.0.0.1:9090")
    src.add_argument("--openmetrics", metavar="FILE", help="read a saved OpenMetrics export instead of a server")
    p.add_argument("--namespace", help="only this namespace (default: all)")
    p.add_argument("--selector", metavar="K=V[,K=V]", help="pods with these Kubernetes labels (kube_pod_labels), "
                   "else series with these labels")
    p.add_argument("--since", default="14d", help="window, ending now (or at --end): 14d, 36h, ... (default 14d)")
    p.add_argument("--end", help="end of the window: unix seconds or ISO time (default: the server's now)")
    p.add_argument("--step", help="resolution of the usage series (default: the finest whole minute under 11,000 points)")
    p.add_argument("--format", default="table", choices=FORMATS, help="output format (default table)")
    p.add_argument("-o", "--output", metavar="PATH", help="write here instead of stdout (html: default recommend.html)")
    p.add_argument("--throttle-target", type=float, default=0.05, metavar="RATIO",
                   help="largest acceptable predicted throttled-period ratio (default 0.05)")
    p.add_argument("--limit-policy", default="target", choices=POLICIES,
                   help="target: smallest limit meeting the target (default); none: requests only, no limit; "
                        "keep: keep the current limit")
    p.add_argument("--min-history", default="24h", help="shorter windows get 'too little data' (default 24h)")
    p.add_argument("--bearer-token-file", metavar="FILE", help="file holding a bearer token")
    p.add_argument("--ca-file", metavar="FILE", help="CA bundle for the server's certificate")
    p.add_argument("--insecure-skip-tls-verify", action="store_true", help="do not verify the server's certificate")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per HTTP request (default 60)")
    p.epilog = "Basic auth: set PROMETHEUS_USERNAME and PROMETHEUS_PASSWORD. Exit status 2 on any error."


def run(args: argparse.Namespace) -> int:
    import time

    from throttlelab.analysis.rightsizing import Settings, rightsize_all
    from throttlelab.errors import ThrottlelabError
    from throttlelab.ingest.prometheus import parse_duration, parse_time
    from throttlelab.ingest.prometheus import read_source

    if not 0 < args.throttle_target < 1:
        raise ThrottlelabError(f"--throttle-target {args.throttle_target}: expected a ratio between 0 and 1 (e.g. 0.05)")
    window = parse_duration(args.since)
    step = parse_duration(args.step) if args.step else None
    settings = Settings(throttle_target=args.throttle_target, limit_policy=args.limit_policy,
                        min_history_s=parse_duration(args.min_history))
    t0 = time.perf_counter()
    fetched, source, how = read_source(
        prometheus_url=args.prometheus, openmetrics_path=args.openmetrics, use_prometheus=False, window_s=window,
        end=parse_time(args.end), namespace=args.namespace, selector=args.selector, step_s=step,
        bearer_token_file=args.bearer_token_file, ca_file=args.ca_file,
        insecure_skip_tls_verify=args.insecure_skip_tls_verify, timeout=args.timeout)
    recs = rightsize_all(fetched.containers, settings)
    took = time.perf_counter() - t0
    text = render(recs, args.format, fetched=fetched, settings=settings, source=source)
    if args.format == "html" and not args.output:
        args.output = "recommend.html"
    if args.output:
        from pathlib import Path

        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(text)
        print(f"wrote {args.output}: {len(recs)} containers ({took:.1f} s, {fetched.queries} queries)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def render(recs, fmt: str, *, fetched, settings, source: str) -> str:
    """The recommendations as ``table``, ``json``, ``csv`` or ``html`` text."""
    import io
    import json

    from throttlelab.analysis.rightsizing import decision_table, recommendations_frame
    from throttlelab.results import to_jsonable

    if fmt == "json":
        return json.dumps(to_jsonable(recs), indent=2, allow_nan=False) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        recommendations_frame(recs).write_csv(buf)
        return buf.getvalue()
    if fmt == "html":
        from throttlelab.report.recommend_html import recommend_html

        return recommend_html(recs, fetched=fetched, settings=settings, source=source)
    return table_text(decision_table(recs), [f"{r.namespace}/{r.pod}/{r.container}: {r.reason}" for r in recs],
                      header=f"{len(recs)} containers, {source}, window {(fetched.end - fetched.start) / 3600:,.1f} h at "
                             f"{fetched.step_s:g}-s steps, target {settings.throttle_target:.0%} throttled periods")


def table_text(table, reasons: list[str], *, header: str) -> str:
    """A plain terminal table (columns padded) followed by one reason per container."""
    cols = table.columns
    rows = [[str(v) for v in row] for row in table.iter_rows()]
    widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(cols)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    out = [header, "", line(cols), line(["-" * w for w in widths]), *map(line, rows), "", "Why:"]
    out += [f"  {r}" for r in reasons]
    return "\n".join(out) + "\n"
