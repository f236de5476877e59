"""The ``kubernetes`` experiment backend: each run is a Pod in one namespace.

Implements :class:`throttlelab.experiment.sweeps.backends.Backend`.  Isolation: a run
owns its node while it runs (runs are pinned to the nodes listed in
``kubernetes.nodes``, one at a time per node); :meth:`KubernetesBackend.execute_many`
runs plans on different nodes in parallel, up to ``kubernetes.max_parallel``.
"""

from __future__ import annotations

import logging
import queue
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any

from throttlelab.errors import EnvironmentProblem
from throttlelab.experiment.sweeps.backends import base_row

from . import cleanup
from . import manifests as mf
from .client import Cluster, api_error_message, connect
from .labels import new_session, selector
from throttlelab.experiment.sweeps.kubernetes_options import KubernetesOptions, parse_options
from .pod_runner import execute_run
from .run_context import RunContext

if TYPE_CHECKING:
    from throttlelab.experiment.sweeps.plan import RunPlan
    from throttlelab.experiment.sweeps.spec import SweepSpec

log = logging.getLogger(__name__)


class KubernetesBackend:
    """Runs sweeps as pods through the official Python client.

    Parameters
    ----------
    spec
        Optional: configure at once (otherwise :meth:`prepare` does).
    """

    name = "kubernetes"

    def __init__(self, spec: SweepSpec | None = None):
        self.session = new_session()
        self._ctx: RunContext | None = None
        self._experiment: str | None = None
        if spec is not None:
            self.configure(spec)

    # -- setup -----------------------------------------------------------
    def available(self) -> tuple[bool, str]:
        """The client library is importable (the cluster is checked by :meth:`prepare`)."""
        try:
            import kubernetes  # noqa: F401
        except ImportError as exc:  # pragma: no cover - a declared dependency
            return False, f"the kubernetes Python client is not installed ({exc})"
        return True, ""

    @property
    def options(self) -> KubernetesOptions:
        """The backend options of the configured spec."""
        return self._context().options

    @property
    def cluster(self) -> Cluster:
        """The API connection (after :meth:`configure` or :meth:`prepare`)."""
        return self._context().cluster

    def configure(self, spec: SweepSpec) -> RunContext:
        """Read the spec's ``kubernetes:`` options and connect (once per spec)."""
        if self._ctx is not None and self._experiment == spec.name:
            return self._ctx
        options = parse_options(spec.backend_options, source=spec.source, lines=spec.source_lines)
        cluster = connect(options)
        self._ctx = RunContext(cluster=cluster, options=options, experiment=spec.name, session=self.session)
        self._experiment = spec.name
        return self._ctx

    def _context(self) -> RunContext:
        if self._ctx is None:
            raise RuntimeError("KubernetesBackend: call prepare(spec) first")
        return self._ctx

    def prepare(self, spec: SweepSpec) -> None:
        """Connect, check access to the namespace, remove orphans, ship the sampler ConfigMap.

        Raises
        ------
        EnvironmentProblem
            When the cluster cannot be reached or the namespace is not accessible.
        """
        from kubernetes.client import ApiException

        from throttlelab.experiment.local_cgroup.service_load import check_service_spec

        check_service_spec(spec)
        ctx = self.configure(spec)
        ns = ctx.cluster.namespace
        try:
            removed = self.remove_orphans()
            if removed:
                log.warning("removed %d leftover object(s) of an earlier sweep: %s", len(removed), ", ".join(removed))
            ctx.cluster.core.create_namespaced_config_map(ns, mf.sampler_configmap(spec.name, self.session, ns))
        except ApiException as exc:
            raise EnvironmentProblem(f"Kubernetes API {ctx.cluster.server}, namespace {ns}: "
                                     f"{api_error_message(exc)} (is deploy/rbac.yaml applied?)") from None
        except Exception as exc:
            if _is_connection_error(exc):
                raise EnvironmentProblem(f"cannot reach the Kubernetes API at {ctx.cluster.server}: "
                                         f"{type(exc).__name__}") from None
            raise

    # -- runs ------------------------------------------------------------
    def node_for(self, plan: RunPlan) -> str | None:
        """The node a plan runs on when run alone: round-robin over ``kubernetes.nodes``
        by plan order (deterministic, so a resumed run lands where it would have)."""
        nodes = self.options.nodes
        return nodes[plan.order % len(nodes)] if nodes else None

    def execute(self, plan: RunPlan, monitor_log: Path) -> dict[str, Any]:
        """Run one plan as a pod and return its runs-table row (pods deleted, Ctrl-C included)."""
        return execute_run(self._context(), plan, Path(monitor_log), self.node_for(plan))

    def parallel_lanes(self) -> int:
        """How many runs :meth:`execute_many` runs at once: ``min(max_parallel, len(nodes))``, at least 1."""
        opts = self.options
        return max(1, min(opts.max_parallel, len(opts.nodes))) if opts.nodes else 1

    def execute_many(self, plans: Iterable[RunPlan],
                     monitor_path: Callable[[str], Path]) -> Iterator[tuple[RunPlan, dict[str, Any]]]:
        """Run plans on different nodes in parallel (one run per node at a time).

        Up to ``min(max_parallel, len(nodes))`` runs go at once; without
        ``kubernetes.nodes`` the runs go one at a time.  Yields ``(plan, row)`` as
        runs finish.  On Ctrl-C the running pods are deleted by :meth:`cleanup`.
        """
        ctx = self._context()
        nodes = list(ctx.options.nodes)
        lanes = self.parallel_lanes()
        if lanes <= 1:
            for plan in plans:
                yield plan, self.execute(plan, monitor_path(plan.run_id))
            return
        free: queue.Queue[str] = queue.Queue()
        for n in nodes:
            free.put(n)

        def one(plan: RunPlan) -> dict[str, Any]:
            node = free.get()
            try:
                return execute_run(ctx, plan, Path(monitor_path(plan.run_id)), node)
            except EnvironmentProblem:
                raise
            except Exception as exc:  # noqa: BLE001 - one run's error is its failed row
                log.exception("run %s failed in the backend", plan.run_id)
                row = base_row(plan, self.name)
                row.update(node=node, status="failed", error=f"{type(exc).__name__}: {exc}")
                return row
            finally:
                free.put(node)

        todo = iter(plans)
        running: dict[Future, RunPlan] = {}
        with ThreadPoolExecutor(max_workers=lanes, thread_name_prefix="throttlelab-kube") as pool:
            try:
                for plan in todo:
                    running[pool.submit(one, plan)] = plan
                    if len(running) >= lanes:
                        done, _ = wait(running, return_when=FIRST_COMPLETED)
                        for f in done:
                            yield running.pop(f), f.result()
                while running:
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for f in done:
                        yield running.pop(f), f.result()
            except BaseException:
                for f in running:
                    f.cancel()
                self._remove_session_pods()
                raise

    # -- cleanup ---------------------------------------------------------
    def _remove_session_pods(self) -> None:
        ctx = self._ctx
        if ctx is not None:
            cleanup.remove(ctx.cluster, selector(ctx.experiment, self.session), wait_s=30.0)

    def cleanup(self, spec: SweepSpec) -> None:
        """Delete every object this sweep session created (pods, the sampler ConfigMap)."""
        ctx = self._ctx
        if ctx is None:
            return
        if ctx.options.keep_pods:
            log.info("keep_pods: leaving this sweep's pods in namespace %s", ctx.cluster.namespace)
            return
        try:
            removed = cleanup.remove(ctx.cluster, selector(ctx.experiment, self.session), wait_s=30.0)
            log.debug("removed %s", ", ".join(removed))
        except Exception as exc:  # noqa: BLE001 - never raise from cleanup; orphans go next time
            log.warning("cleanup of namespace %s incomplete: %s", ctx.cluster.namespace, exc)

    def find_orphans(self) -> list[str]:
        """Objects of this experiment left by another (dead) sweep session."""
        ctx = self._ctx
        if ctx is None:  # not configured yet: prepare() removes them
            return []
        return [str(o) for o in cleanup.find_orphans(ctx.cluster, ctx.experiment, self.session)]

    def remove_orphans(self) -> list[str]:
        """Delete what :meth:`find_orphans` reports; return the names."""
        ctx = self._ctx
        if ctx is None:
            return []
        orphans = cleanup.find_orphans(ctx.cluster, ctx.experiment, self.session)
        if not orphans:
            return []
        names = cleanup.delete(ctx.cluster, orphans)
        stuck = cleanup.wait_gone(ctx.cluster, [o.name for o in orphans if o.kind == "Pod"], timeout_s=30.0)
        if stuck:
            cleanup.delete(ctx.cluster, [cleanup.Labelled("Pod", n, None) for n in stuck], force=True)
        return names

    def close(self) -> None:
        """Close the API connection."""
        if self._ctx is not None:
            self._ctx.cluster.close()


def _is_connection_error(exc: BaseException) -> bool:
    import urllib3.exceptions

    return isinstance(exc, (urllib3.exceptions.HTTPError, ConnectionError, OSError))
