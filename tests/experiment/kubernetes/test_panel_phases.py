"""Tests of throttlelab.experiment.kubernetes.panel_phases: recommend's patches read and applied as a user would."""

from __future__ import annotations

from types import SimpleNamespace

from throttlelab.experiment.kubernetes import apply_patches, patch_documents

PATCH = """# header
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: duty-cycle, namespace: prod}
spec: {template: {spec: {containers: [{name: main, resources: {limits: {cpu: 330m}}}]}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: prod}
---
"""


def test_the_deployments_patches_are_applied_as_strategic_merge_patches():
    calls = []
    apps = SimpleNamespace(patch_namespaced_deployment=lambda *a, **kw: calls.append((a, kw)))
    docs = patch_documents(PATCH)
    assert [d["kind"] for d in docs] == ["Deployment", "StatefulSet"]  # the empty last document dropped
    assert apply_patches(apps, docs) == ["duty-cycle"]
    (name, ns, body), kw = calls[0]
    assert (name, ns, kw) == ("duty-cycle", "prod", {"_content_type": "application/strategic-merge-patch+json"})
    assert body["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"] == "330m"
