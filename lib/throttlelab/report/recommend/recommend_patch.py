"""``throttlelab recommend --format patch``: one strategic-merge patch per workload, as multi-document YAML.

Each document names the workload (``apiVersion``, ``kind``, ``metadata.name`` and
``metadata.namespace``) and lists, under its pod template
(``spec.template.spec.containers``; a CronJob's under
``spec.jobTemplate.spec.template.spec``), the containers to change by ``name``
(the list's merge key) with their CPU request and limit: the JSON's
``recommended_request_cores`` and ``recommended_limit_cores`` in millicores
(:func:`~throttlelab.core.quantities.format_millicores`).
Memory is left alone.  Containers whose decision is ``keep`` (or that had too
little data) are left out; a workload with none left gets no document.  Under
the requests-only policy each CPU limit is removed (``limits: {cpu: null}``).
Bare Pods, Jobs and workloads whose kind a pod name could not tell get no patch
(their rows say why).

Apply one document with ``kubectl patch <kind> <name> -n <namespace> --type strategic --patch-file <file>``,
or with the official Python client's ``patch_namespaced_<kind>(name, namespace, body,
_content_type="application/strategic-merge-patch+json")`` (its default for a dict is a JSON Patch).
"""

from __future__ import annotations

from throttlelab.analysis.rightsizing import Rightsizing
from throttlelab.core.quantities import format_millicores

#: Kinds a pod-template patch changes, and their API group/version.
API_VERSION = {"Deployment": "apps/v1", "StatefulSet": "apps/v1", "DaemonSet": "apps/v1", "CronJob": "batch/v1"}
#: Decisions that change nothing.
UNCHANGED = ("keep", "too little data")
CONTENT_TYPE = "application/strategic-merge-patch+json"


def _container(r: Rightsizing, policy: str) -> dict:
    limit = (None if policy == "none" or r.recommended_limit_cores is None
             else format_millicores(r.recommended_limit_cores))
    return {"name": r.container, "resources": {"requests": {"cpu": format_millicores(r.recommended_request_cores)},
                                               "limits": {"cpu": limit}}}


def patches(recs: list[Rightsizing], policy: str) -> tuple[list[dict], list[str]]:
    """The patch documents (one per workload with something to change) and the lines saying what got none."""
    docs: dict[tuple[str, str, str], dict] = {}
    said: list[str] = []
    for r in recs:
        name = f"{r.namespace}/{r.workload_kind}/{r.workload}/{r.container}"
        if r.decision in UNCHANGED:
            said.append(f"{name}: {r.decision}, not patched")
            continue
        if r.workload_kind not in API_VERSION:
            said.append(f"{name}: no patch ({r.workload_kind}): change what creates it")
            continue
        key = (r.namespace, r.workload_kind, r.workload)
        if key not in docs:
            pod_spec: dict = {"containers": []}
            spec = {"template": {"spec": pod_spec}}
            if r.workload_kind == "CronJob":
                spec = {"jobTemplate": {"spec": spec}}
            docs[key] = {"apiVersion": API_VERSION[r.workload_kind], "kind": r.workload_kind,
                         "metadata": {"name": r.workload, "namespace": r.namespace}, "spec": spec}
        containers(docs[key]).append(_container(r, policy))
    return list(docs.values()), said


def containers(doc: dict) -> list[dict]:
    """The ``containers`` list of a patch document, wherever its kind keeps the pod template.

    >>> containers({"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [
    ...     {"name": "app"}]}}}}}})
    [{'name': 'app'}]
    """
    spec = doc["spec"]
    if doc["kind"] == "CronJob":
        spec = spec["jobTemplate"]["spec"]
    return spec["template"]["spec"]["containers"]


def patch_yaml(recs: list[Rightsizing], policy: str, *, source: str = "", notes: tuple[str, ...] = ()) -> str:
    """The multi-document YAML, each document preceded by the command that applies it.

    ``notes`` (the run's: workloads inferred from pod names, a missing metric) go into the header as comments,
    so whoever applies a patch sees how its workload was found.

    >>> print(patch_yaml([], "target", notes=("Workloads inferred from pod names.",)).splitlines()[-2])
    # Workloads inferred from pod names.
    """
    import yaml

    docs, said = patches(recs, policy)
    head = [f"# CPU requests and limits recommended by throttlelab from {source}" if source else
            "# CPU requests and limits recommended by throttlelab",
            "# Strategic-merge patches: apply each document with",
            "#   kubectl patch <kind> <name> -n <namespace> --type strategic --patch-file <document>",
            *(f"# {note}" for note in notes)]
    if policy == "none":
        head += ["# Requests-only policy: each CPU limit is removed (limits: {cpu: null}); memory is left alone.",
                 "# A LimitRange with a default CPU limit in the namespace would put a limit back on new pods."]
    head += [f"# {line}" for line in said]
    if not docs:
        return "\n".join([*head, "# nothing to patch"]) + "\n"
    parts = []
    for d in docs:
        cmd = f"# kubectl patch {d['kind'].lower()} {d['metadata']['name']} -n {d['metadata']['namespace']} --type strategic"
        parts.append(cmd + "\n" + yaml.safe_dump(d, sort_keys=False, default_flow_style=False))
    return "\n".join(head) + "\n" + "---\n".join(parts)
