"""Names and labels of the objects a Kubernetes sweep creates, and selectors that find them.

Every object carries the labels :data:`MANAGED_BY`, :data:`EXPERIMENT`,
:data:`SESSION` and :data:`ROLE` (and run objects :data:`RUN_ID`), which is how
cleanup and orphan removal find them (:func:`selector`).  Names and label
values are made valid for the API (DNS-1123 labels, 63 characters at most,
cut with a hash so distinct texts stay distinct).
"""

from __future__ import annotations

import hashlib
import re
import secrets

MANAGED_BY = "app.kubernetes.io/managed-by"
MANAGER = "throttlelab"
EXPERIMENT = "throttlelab.io/experiment"
RUN_ID = "throttlelab.io/run-id"
SESSION = "throttlelab.io/session"
ROLE = "throttlelab.io/role"


def label_value(text: str) -> str:
    """``text`` as a valid label value (<= 63 chars, alphanumeric ends; hashed if cut)."""
    v = re.sub(r"[^A-Za-z0-9_.-]", "-", text)
    if len(v) > 63:
        v = v[:56] + "-" + hashlib.sha1(text.encode()).hexdigest()[:6]
    return v.strip("-_.") or "x"


def dns_name(text: str, limit: int = 63) -> str:
    """``text`` as a DNS-1123 label (lowercase, ``-``), cut with a hash to ``limit`` chars."""
    v = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")
    if len(v) > limit:
        v = v[: limit - 7].rstrip("-") + "-" + hashlib.sha1(text.encode()).hexdigest()[:6]
    return v or "x"


def new_session() -> str:
    """A random id naming one sweep process's objects."""
    return secrets.token_hex(4)


def pod_name(run_id: str, role: str = "run") -> str:
    """A fresh pod name for a run (random suffix: a retried run never collides)."""
    prefix = "tl" if role == "run" else "tl-stress"
    return dns_name(f"{prefix}-{run_id}", 57) + "-" + secrets.token_hex(2)


def labels(experiment: str, session: str, role: str, run_id: str | None = None) -> dict[str, str]:
    """The labels every object of a sweep carries."""
    out = {MANAGED_BY: MANAGER, EXPERIMENT: label_value(experiment), SESSION: session, ROLE: role}
    if run_id is not None:
        out[RUN_ID] = label_value(run_id)
    return out


def selector(experiment: str | None = None, session: str | None = None, run_id: str | None = None) -> str:
    """A label selector for a sweep's objects (all managed objects when nothing is given)."""
    parts = [f"{MANAGED_BY}={MANAGER}"]
    if experiment is not None:
        parts.append(f"{EXPERIMENT}={label_value(experiment)}")
    if session is not None:
        parts.append(f"{SESSION}={session}")
    if run_id is not None:
        parts.append(f"{RUN_ID}={label_value(run_id)}")
    return ",".join(parts)
