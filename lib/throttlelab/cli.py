"""The ``throttlelab`` command: a thin face over the library.

Each subcommand lives in its layer's ``cli`` module, which exposes
``add_arguments(parser)`` and ``run(args) -> int`` and imports nothing heavy at
module level (``throttlelab ingest`` must start fast).  The command table names
each module by a function that imports it (a plain import, inside the function so
only what a command needs is loaded).  Bad input raises
:class:`~throttlelab.errors.ThrottlelabError` and is printed without a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from types import ModuleType


def _ingest() -> ModuleType:
    import throttlelab.ingest.ingest_cli as module

    return module


def _sweep() -> ModuleType:
    import throttlelab.experiment.sweep_cli as module

    return module


def _run() -> ModuleType:
    import throttlelab.report.study_cli as module

    return module


def _recommend() -> ModuleType:
    import throttlelab.report.recommend_cli as module

    return module


def _index() -> ModuleType:
    import throttlelab.report.index_cli as module

    return module


def _check() -> ModuleType:
    import throttlelab.report.check_cli as module

    return module


# name -> (the function importing its module, one-line help)
COMMANDS: dict[str, tuple[Callable[[], ModuleType], str]] = {
    "ingest": (_ingest, "read monitor logs, cgroup files, k6, Prometheus and time output"),
    "sweep": (_sweep, "run a CPU-limit x thread-count sweep from a spec"),
    "run": (_run, "run a study: execute its notebooks and publish HTML reports"),
    "recommend": (_recommend, "throttling-aware CPU requests and limits from a Prometheus"),
    "index": (_index, "rebuild reports/index.html from the reports on disk"),
    "check": (_check, "check in headless Chromium that reports render offline"),
}

#: Examples shown under each subcommand's ``--help``.
EXAMPLES: dict[str, str] = {
    "ingest": """\
  throttlelab ingest data/published/samples/local_cgroup_v1_quota_steps.log -o samples.parquet
  throttlelab ingest --format monitor --tz UTC monitor.log.gz -o m.parquet --intervals iv.parquet
  throttlelab ingest results/*.k6.json --experiment semaphore -o k6.parquet""",
    "sweep": """\
  throttlelab sweep studies/sweeps/tiny_burner.yaml --dry-run
  throttlelab sweep studies/sweeps/go_local.yaml --max-runs 4
  throttlelab sweep studies/sweeps/go_local.yaml --retry-failed""",
    "run": """\
  throttlelab run studies/default.yaml
  throttlelab run studies/default.yaml --only recommend -j 1
  throttlelab run studies/cluster.yaml -p prometheus_url http://127.0.0.1:9090""",
    "recommend": """\
  throttlelab recommend --prometheus http://127.0.0.1:9090 --namespace shop --since 7d
  throttlelab recommend --openmetrics data/published/samples/shop_namespace.om.gz --read-directly
  throttlelab recommend --prometheus http://127.0.0.1:9090 --format patch -o patches.yaml
  throttlelab recommend --prometheus http://127.0.0.1:9090 --format html -o recommend.html""",
    "index": """\
  throttlelab index
  throttlelab index /tmp/reports""",
    "check": """\
  throttlelab check
  throttlelab check reports --screenshots docs/screenshots""",
}


class _Parser(argparse.ArgumentParser):
    """argparse with the error first, one short line (a list of choices on the next), then the usage."""

    def error(self, message: str):  # noqa: D102  (argparse's hook)
        from throttlelab.errors import error_lines

        sys.stderr.write(error_lines(f"{self.prog}: error: {message}") + "\n" + self.format_usage())
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="throttlelab",
        description="Kubernetes CPU limits, throttling and noisy neighbours: studies, sweeps and ingest.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  throttlelab run studies/default.yaml\n"
               "  throttlelab recommend --prometheus http://127.0.0.1:9090\n"
               "  throttlelab COMMAND --help     (each command's options and examples)",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (load, help_) in COMMANDS.items():
        p = sub.add_parser(name, help=help_, description=help_, formatter_class=argparse.RawDescriptionHelpFormatter)
        try:
            module = load()
        except ModuleNotFoundError as exc:
            if not (exc.name or "").startswith("throttlelab."):  # a missing dependency is a bug, not a smaller build
                raise
            p.set_defaults(_missing=f"'{name}' is not available in this build ({exc.name} missing)")
            continue
        module.add_arguments(p)
        if name in EXAMPLES:
            p.epilog = "examples:\n" + EXAMPLES[name] + (f"\n\n{p.epilog}" if p.epilog else "")
        p.set_defaults(_module=module)
    return parser


#: Settings of polars' allocator (jemalloc) for ``throttlelab ingest``, which is one burst of large tables:
#: polars keeps freed pages 0.5 s, then 1 s more as lazily freed pages that still count as the process's
#: memory; without the second stage they go back to the system after 0.5 s.  On the ingest bench's day with
#: 2-3 containers (402 MB), peak memory 1,195-1,284 MB against 1,394-1,629 MB without it (alternating runs), in
#: the same CPU time within the shared machine's noise.  A value the user sets in ``_RJEM_MALLOC_CONF`` wins.
INGEST_ALLOCATOR = "muzzy_decay_ms:0"


def _allocator(command: str | None) -> None:
    """Set :data:`INGEST_ALLOCATOR` for ``ingest``, when polars (which reads it once, on import) is not loaded."""
    import os

    if command == "ingest" and "polars" not in sys.modules and "_RJEM_MALLOC_CONF" not in os.environ:
        os.environ["_RJEM_MALLOC_CONF"] = INGEST_ALLOCATOR


def main(argv: list[str] | None = None) -> int:
    from throttlelab.errors import ThrottlelabError

    parser = build_parser()
    args = parser.parse_args(argv)
    _allocator(args.command)
    if args.version:
        from throttlelab import __version__

        print(__version__)
        return 0
    if not args.command:
        parser.print_help()
        return 2
    if getattr(args, "_missing", None):
        print(f"throttlelab: error: {args._missing}", file=sys.stderr)
        return 2
    try:
        return int(args._module.run(args) or 0)
    except ThrottlelabError as exc:
        from throttlelab.errors import error_lines

        print(error_lines(f"throttlelab: error: {exc}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("throttlelab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
