"""Dropping what the API server set on an object it returned.

An object copied from ``kubectl get -o yaml`` carries ``status``, the server-set fields of
``ObjectMeta`` (apimachinery ``pkg/apis/meta/v1/types.go``) and kubectl's
last-applied-configuration annotation; none of it may be sent on a create, so it is
dropped and the loader notes what went.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["LAST_APPLIED", "SERVER_METADATA", "without_server_fields"]


# What the API server sets on the objects it returns; none of it may be sent on a create.
SERVER_METADATA = (
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
)
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def without_server_fields(doc: object) -> tuple[object, list[str]]:
    """The object without what the API server set, and the fields dropped."""
    if not isinstance(doc, Mapping):
        return doc, []
    dropped = []
    out = dict(doc)
    if "status" in out:
        del out["status"]
        dropped.append("status")
    meta = out.get("metadata")
    if isinstance(meta, Mapping):
        new_meta = dict(meta)
        for key in SERVER_METADATA:
            if key in new_meta:
                del new_meta[key]
                dropped.append(f"metadata.{key}")
        annotations = new_meta.get("annotations")
        if isinstance(annotations, Mapping) and LAST_APPLIED in annotations:
            new_meta["annotations"] = {k: v for k, v in annotations.items() if k != LAST_APPLIED}
            dropped.append(f"metadata.annotations[{LAST_APPLIED!r}]")
        out["metadata"] = new_meta
    return (out, dropped) if dropped else (doc, [])
