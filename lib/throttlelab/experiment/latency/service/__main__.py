"""Run the target service: ``python -m throttlelab.experiment.latency.service [options]``.

Binds 127.0.0.1 (a free port unless ``--port``), prints one JSON line
``{"event": "ready", "port": ..., "pid": ...}`` on stdout once it accepts
requests, and stops gracefully on SIGTERM or SIGINT (requests in flight finish,
then the pool stops), printing ``{"event": "stopped", ...}``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading

from throttlelab.experiment.latency.service.pipeline import Pipeline, PipelineConfig
from throttlelab.experiment.latency.service.server import ServiceServer


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m throttlelab.experiment.latency.service", description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1", help="bind address (loopback only)")
    p.add_argument("--port", type=int, default=0, help="port; 0 = a free port")
    p.add_argument("--in-pod", action="store_true",
                   help="bind 0.0.0.0 of the pod's own network namespace (a Kubernetes pod; see kubernetes.latency_pods)")
    p.add_argument("--max-workers", type=int, default=8, help="threads in the pipeline's stage pool")
    p.add_argument("--semaphore", type=int, default=None, help="max concurrent embedding stages (default: none)")
    p.add_argument("--heavy-elements", type=int, default=PipelineConfig.heavy_elements)
    p.add_argument("--light-elements", type=int, default=PipelineConfig.light_elements)
    p.add_argument("--score-elements", type=int, default=PipelineConfig.score_elements)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.in_pod:
        args.host = "0.0.0.0"  # noqa: S104 - the pod's own network namespace, reached only from this machine
    elif args.host not in ("127.0.0.1", "::1", "localhost"):
        print(json.dumps({"event": "error", "error": f"refusing to bind non-loopback host {args.host}"}), flush=True)
        return 2
    config = PipelineConfig(max_workers=args.max_workers, semaphore=args.semaphore or None,
                            heavy_elements=args.heavy_elements, light_elements=args.light_elements,
                            score_elements=args.score_elements)
    pipeline = Pipeline(config)
    server = ServiceServer((args.host, args.port), pipeline)

    def stop(signum, frame) -> None:  # shutdown() blocks until serve_forever returns: not from its thread
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(json.dumps({"event": "ready", "port": server.server_address[1], "pid": os.getpid()}), flush=True)
    server.serve_forever(poll_interval=0.1)
    server.server_close()  # waits for request threads (daemon_threads=False)
    pipeline.close()
    print(json.dumps({"event": "stopped", "pid": os.getpid()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
