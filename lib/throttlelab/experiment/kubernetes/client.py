"""Connecting to a cluster with the official ``kubernetes`` client.

A kubeconfig (file and context selectable) or the in-cluster service account.
Nothing here logs credentials: errors name the file and context only.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from throttlelab.errors import EnvironmentProblem

from throttlelab.experiment.sweeps.kubernetes_options import KubernetesOptions


@dataclass
class Cluster:
    """An API connection plus the namespace every call is confined to.

    Attributes
    ----------
    api
        ``kubernetes.client.ApiClient``.
    core
        ``kubernetes.client.CoreV1Api`` on ``api``.
    namespace
        The only namespace the runner touches.
    server
        API server URL (for messages; never the credentials).
    """

    api: Any
    core: Any
    namespace: str
    server: str

    def close(self) -> None:
        """Close the connection pool."""
        try:
            self.api.close()
        except Exception:  # pragma: no cover - best effort at shutdown
            pass


def connect(options: KubernetesOptions) -> Cluster:
    """Open a connection as ``options`` say (kubeconfig + context, or in-cluster).

    Raises
    ------
    EnvironmentProblem
        When no usable configuration is found.
    """
    from kubernetes import client, config
    from kubernetes.config.config_exception import ConfigException

    if options.in_cluster:
        cfg = client.Configuration()
        try:
            config.load_incluster_config(client_configuration=cfg)
        except ConfigException as exc:
            raise EnvironmentProblem(f"in-cluster Kubernetes config not available: {exc}") from None
        api = client.ApiClient(configuration=cfg)
    else:
        path = options.kubeconfig or os.environ.get("KUBECONFIG", "").split(os.pathsep)[0] or "~/.kube/config"
        path = str(Path(path).expanduser())
        if not Path(path).is_file():
            raise EnvironmentProblem(f"kubeconfig {path} not found (set kubernetes.kubeconfig or KUBECONFIG)")
        try:
            api = config.new_client_from_config(config_file=path, context=options.context)
        except ConfigException as exc:
            ctx = f" context {options.context!r}" if options.context else ""
            raise EnvironmentProblem(f"kubeconfig {path}{ctx}: {exc}") from None
    return Cluster(api=api, core=client.CoreV1Api(api), namespace=options.namespace,
                   server=api.configuration.host)


def api_error_message(exc: Exception) -> str:
    """Short text of a ``kubernetes.client.ApiException`` (status, reason, message)."""
    import json

    status = getattr(exc, "status", None)
    reason = getattr(exc, "reason", "") or ""
    body = getattr(exc, "body", None)
    message = ""
    if body:
        try:
            message = json.loads(body).get("message", "")
        except (ValueError, AttributeError):
            message = str(body)[:300]
    return f"{status} {reason}: {message}".strip(": ") if status else str(exc)


def api_exception() -> type[Exception]:
    """``kubernetes.client.ApiException`` (imported when first needed, as the package is)."""
    from kubernetes.client import ApiException

    return ApiException
