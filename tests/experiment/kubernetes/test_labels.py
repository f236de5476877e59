"""Tests of throttlelab.experiment.kubernetes.labels: names, label values and selectors (no cluster needed)."""

from __future__ import annotations

from throttlelab.experiment.kubernetes import labels as lb


def test_names_and_label_values_are_valid():
    long = "A" * 80 + "_"
    v = lb.label_value(long)
    assert len(v) <= 63 and v[0].isalnum() and v[-1].isalnum()
    name = lb.pod_name("l500m-t2-c0-r0-" + "x" * 80)
    assert len(name) <= 63 and name == name.lower()
    assert lb.selector("e", "s") == "app.kubernetes.io/managed-by=throttlelab,throttlelab.io/experiment=e,throttlelab.io/session=s"
