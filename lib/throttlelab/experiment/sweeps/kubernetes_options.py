"""The ``kubernetes:`` mapping of a sweep spec, validated.

Example (``studies/sweeps/kubernetes_example.yaml``)::

    backend: kubernetes
    kubernetes:
      namespace: throttlelab          # every object the runner makes lives here
      context: my-cluster             # kubeconfig context (default: current)
      kubeconfig: ~/.kube/config      # default: $KUBECONFIG or ~/.kube/config
      in_cluster: false               # true: use the pod's service account
      image: linuxserver/ffmpeg:7.1   # the workload image (must have /bin/sh)
      service_image: registry.example/throttlelab-service:dd2050c679   # the 'service' workload's image
      command: "ffmpeg -threads {threads} ..."   # overrides the workload's command
      node_selector: {kubernetes.io/arch: amd64}
      nodes: [node-a, node-b]         # pin runs to these nodes, one run per node at a time
      max_parallel: 2                 # runs on different nodes at once
      memory_limit: 1Gi
      pending_timeout_s: 120          # Pending longer than this: failed, with the scheduler's reason
      stress_image: busybox:1.36      # noisy-neighbour pods
      node_cpus: 8                    # node CPUs for contention shares (default: read the node)
      image_pull_policy: IfNotPresent
      service_account: throttlelab-runner   # the pods' service account (default: namespace default)
      annotations: {sidecar.istio.io/inject: "false"}   # added to every pod (e.g. no mesh sidecar)
      prometheus_url: http://127.0.0.1:9090   # also read each run's counters from cAdvisor (default: $PROMETHEUS)

Every problem raises :class:`~throttlelab.errors.SpecError` naming the spec file,
the line and the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, StrictBool, StrictFloat, StrictInt, model_validator

from throttlelab.config_file import ConfigModel, KeyLines, validate

DEFAULT_IMAGE = "busybox:1.36"
_DNS_LABEL = r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"
_QUANTITY = r"^\d+(\.\d+)?([EPTGMK]i?|[numk]|e\d+)?$"


def _command(value: str | None) -> str | None:
    if value is not None:
        try:
            value.format(threads="1", nproc="1")
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(f"only {{threads}} and {{nproc}} may be substituted ({exc})") from None
    return value


DnsLabel = Annotated[str, Field(pattern=_DNS_LABEL)]
NonEmpty = Annotated[str, Field(min_length=1, pattern=r"\S")]
Quantity = Annotated[str, Field(pattern=_QUANTITY)]
Seconds = StrictInt | StrictFloat


class KubernetesOptions(ConfigModel):
    """The ``kubernetes:`` block of a sweep spec: where and how run pods are made."""

    namespace: DnsLabel = Field("throttlelab", description="every object the runner makes lives here")
    context: NonEmpty | None = Field(None, description="kubeconfig context (default: current)")
    kubeconfig: NonEmpty | None = Field(None, description="default: $KUBECONFIG or ~/.kube/config")
    in_cluster: StrictBool = Field(False, description="use the pod's service account")
    image: NonEmpty = Field(DEFAULT_IMAGE, description="the workload image (must have /bin/sh)")
    service_image: NonEmpty | None = Field(
        None, description="image of the 'service' workload: /bin/sh and the built-in Go service at /bin/tl-service "
                          "(default: throttlelab.local/service:<source hash>, which make cluster-up imports)")
    command: Annotated[NonEmpty | None, AfterValidator(_command)] = Field(
        None, description="overrides the workload's command; {threads} and {nproc} are substituted")
    node_selector: dict[str, str] = Field(default_factory=dict, description="node labels the pods need")
    nodes: Annotated[tuple[NonEmpty, ...], AfterValidator(lambda v: tuple(dict.fromkeys(v)))] = Field((), description="pin runs to these nodes, one run per node at a time")
    max_parallel: StrictInt = Field(1, ge=1, description="runs on different nodes at once")
    memory_limit: Quantity | None = Field(None, description="e.g. 1Gi")
    memory_request: Quantity | None = Field(None, description="e.g. 256Mi")
    pending_timeout_s: Seconds = Field(120.0, ge=1, description="Pending longer than this: a timeout row")
    stress_image: NonEmpty = Field(DEFAULT_IMAGE, description="image of the noisy-neighbour pods")
    image_pull_policy: Literal["Always", "IfNotPresent", "Never"] = Field("IfNotPresent", description="of every pod")
    service_account: DnsLabel | None = Field(None, description="the pods' service account (default: namespace default)")
    poll_interval_s: Seconds = Field(0.5, ge=0.05, description="how often pod state is read")
    keep_pods: StrictBool = Field(False, description="keep finished run pods (debugging)")
    node_cpus: Seconds | None = Field(None, gt=0, description="node CPUs for contention shares (default: read the node)")
    annotations: dict[str, str] = Field(default_factory=dict, description="added to every pod")
    prometheus_url: Annotated[str, Field(pattern=r"^https?://\S+$")] | None = Field(
        None, description="also read each run's counters from cAdvisor (default: $PROMETHEUS)")

    @model_validator(mode="after")
    def _in_cluster_alone(self) -> KubernetesOptions:
        if self.in_cluster and (self.context or self.kubeconfig):
            raise ValueError("in-cluster config takes no context or kubeconfig")
        return self


def parse_options(raw: Mapping[str, Any] | None, *, source: str | Path | None = None,
                  lines: KeyLines | None = None) -> KubernetesOptions:
    """Validate the spec's ``kubernetes:`` mapping.

    Raises
    ------
    SpecError
        Naming ``source``, the line and the key (``kubernetes.<key>``).
    """
    return validate(KubernetesOptions, dict(raw or {}), source=source, lines=lines, prefix=("kubernetes",))
