"""A cluster snapshot: the objects ``kubectl get ... -A -o yaml`` printed, indexed.

Preflight and lifecycle facts both read it. A snapshot is a ``v1`` ``List`` (or any
stream of such lists and single objects), for example::

    kubectl get nodes,pods,queues.scheduling.volcano.sh,podgroups.scheduling.volcano.sh,\\
      rayclusters.ray.io,jobs.batch,configmaps,events -A -o yaml > cluster.yaml
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from raygang.kube.errors import (
    Problem,
    SpecError,
    describe_document,
    describe_hidden,
    describe_value,
    field_path,
)
from raygang.kube.kubeyaml import Limits, default_limits
from raygang.kube.quantity import Quantity, QuantityError
from raygang.kube.secretkeys import secret_field
from raygang.kube.yamlfile import read_documents

__all__ = [
    "SNAPSHOT_MIB",
    "ClusterSnapshot",
    "check_snapshot_documents",
    "load_snapshot",
    "snapshot_from_objects",
]

ObjectKey = tuple[str, str, str]  # (kind, namespace or "", name)


@dataclass(frozen=True)
class ClusterSnapshot:
    """Objects observed in a cluster, by kind, namespace and name.

    Attributes:
        source: where the snapshot came from (a file path, or ``live``).
        objects: every object, keyed by ``(kind, namespace, name)``; cluster-scoped
            objects have namespace ``""``.
    """

    source: str
    objects: Mapping[ObjectKey, Mapping[str, Any]] = field(default_factory=dict)

    def get(self, kind: str, namespace: str | None, name: str) -> Mapping[str, Any] | None:
        """One object, or None when the snapshot does not hold it."""
        return self.objects.get((kind, namespace or "", name))

    def of_kind(self, kind: str) -> Iterator[Mapping[str, Any]]:
        """Every object of a kind, in (namespace, name) order."""
        for key in sorted(k for k in self.objects if k[0] == kind):
            yield self.objects[key]

    def has_kind(self, kind: str) -> bool:
        """True when the snapshot holds at least one object of that kind.

        A snapshot taken without, say, ``nodes`` says nothing about nodes; checks that
        need them are skipped rather than failed.
        """
        return any(k[0] == kind for k in self.objects)


def _items(doc: object) -> Iterator[Mapping[str, Any]]:
    if not isinstance(doc, Mapping):
        return
    kind = doc.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(doc.get("items"), list):
        for item in doc["items"]:
            yield from _items(item)
    elif isinstance(kind, str):
        yield doc


def snapshot_from_objects(
    objects: list[Mapping[str, Any]] | Any, source: str = "snapshot"
) -> ClusterSnapshot:
    """Index objects (or ``List`` documents) into a snapshot."""
    index: dict[ObjectKey, Mapping[str, Any]] = {}
    for doc in objects:
        for item in _items(doc):
            meta = item.get("metadata") or {}
            name = meta.get("name")
            if not isinstance(name, str):
                continue
            index[(str(item["kind"]), str(meta.get("namespace") or ""), name)] = item
    return ClusterSnapshot(source, index)


# --- reading a snapshot file, strictly ------------------------------------------------------
# The bounds a snapshot is read with by default, in MiB (Limits.sized): 10,000 nodes fit.
SNAPSHOT_MIB = 64
_ACCEPTED = "the output of kubectl get ... -A -o yaml"
_MAX_PROBLEMS = 20

# What a snapshot object must look like where raygang reads it: a field's type, or a
# nested shape. Fields not listed are not read and not checked; null is always allowed
# (the API server drops it). ("list", shape) is a list of that shape.
Shape = Any

_CONTAINERS: Shape = (
    "list",
    {
        "name": "str",
        "env": ("list", {"name": "str", "value": "str"}),
        "resources": {"requests": "quantities", "limits": "quantities"},
        "restartPolicy": "str",
    },
)
_POD_SPEC: Shape = {
    "nodeName": "str",
    "schedulerName": "str",
    "priorityClassName": "str",
    "containers": _CONTAINERS,
    "initContainers": _CONTAINERS,
    "overhead": "quantities",
    "resources": {"requests": "quantities", "limits": "quantities"},
    "nodeSelector": "strmap",
    "tolerations": (
        "list",
        {"key": "str", "operator": "str", "value": "str", "effect": "toleration_effect"},
    ),
    "affinity": "map",
}
_TEMPLATE: Shape = {"metadata": "map", "spec": _POD_SPEC}
_META: Shape = {
    "name": "str",
    "namespace": "str",
    "uid": "str",
    "labels": "strmap",
    "annotations": "strmap",
    "creationTimestamp": "time",
    "deletionTimestamp": "time",
    "ownerReferences": ("list", {"kind": "str", "name": "str", "uid": "str"}),
}
_KINDS: dict[str, Shape] = {
    "Pod": {
        "spec": _POD_SPEC,
        "status": {
            "phase": "str",
            "startTime": "time",
            "containerStatuses": (
                "list",
                {
                    "name": "str",
                    "state": {
                        "terminated": {
                            "exitCode": "int32",
                            "reason": "str",
                            "finishedAt": "time",
                        }
                    },
                },
            ),
        },
    },
    "Node": {
        "spec": {
            "unschedulable": "bool",
            "taints": ("list", {"key": "str", "value": "str", "effect": "taint_effect"}),
        },
        "status": {"allocatable": "quantities", "capacity": "quantities"},
    },
    "PodGroup": {
        "spec": {
            "minMember": "int32",
            "minResources": "quantities",
            "queue": "str",
            "priorityClassName": "str",
            "networkTopology": "map",
        },
        "status": {"phase": "str"},
    },
    "Queue": {
        "spec": {
            "capability": "quantities",
            "deserved": "quantities",
            "guarantee": {"resource": "quantities"},
            "weight": "int32",
            "priority": "int32",
        },
        "status": {"state": "str"},
    },
    "Job": {
        "spec": {"template": _TEMPLATE, "backoffLimit": "int32"},
        "status": {
            "conditions": (
                "list",
                {
                    "type": "str",
                    "status": "str",
                    "reason": "str",
                    "message": "str",
                    "lastTransitionTime": "time",
                },
            ),
            "startTime": "time",
            "completionTime": "time",
            "active": "int32",
            "succeeded": "int32",
            "failed": "int32",
        },
    },
    "RayCluster": {
        "spec": {
            "headGroupSpec": {"template": _TEMPLATE},
            "workerGroupSpecs": (
                "list",
                {"groupName": "str", "suspend": "bool", "replicas": "int32", "template": _TEMPLATE},
            ),
        },
        "status": {"state": "str"},
    },
    "ConfigMap": {"data": "strmap"},
    # core/v1 Events the lifecycle reads: the KubeRay operator's refusal of a RayCluster spec.
    "Event": {
        "involvedObject": {"kind": "str", "name": "str", "namespace": "str", "uid": "str"},
        "reason": "str",
        "message": "str",
        "type": "str",
    },
}

_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})"
)
# Later times overflow the lifecycle's arithmetic (a TTL or a backoff added to them).
_LATEST_YEAR = 9000
_INT32 = (-(2**31), 2**31 - 1)
# k8s.io/api/core/v1 TaintEffect; a toleration's empty effect matches them all.
_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _type_problem(value: object, kind: str) -> str | None:
    """Why ``value`` is not of the leaf type ``kind``; None when it is."""
    if kind == "str":
        return None if isinstance(value, str) else "a string"
    if kind == "bool":
        return None if isinstance(value, bool) else "true or false"
    if kind == "map":
        return None if isinstance(value, Mapping) else "a map"
    if kind in ("taint_effect", "toleration_effect"):
        effects = _TAINT_EFFECTS if kind == "taint_effect" else ("", *_TAINT_EFFECTS)
        return None if value in effects else " or ".join(repr(e) for e in effects)
    if kind == "int32":
        ok = isinstance(value, int) and not isinstance(value, bool)
        return None if ok and _INT32[0] <= value <= _INT32[1] else "an integer (int32)"  # type: ignore[operator]
    if kind == "strmap":
        if not isinstance(value, Mapping):
            return "a map of strings"
        bad = next((k for k, v in value.items() if not isinstance(v, str)), None)
        return None if bad is None else f"a map of strings (entry {bad!r} is not)"
    if kind == "quantities":
        if not isinstance(value, Mapping):
            return "a map of quantities"
        for key, item in value.items():
            if isinstance(item, bool) or not isinstance(item, str | int):
                return f"a map of quantities (entry {key!r} is {describe_value(item)})"
            try:
                quantity = Quantity.parse(item)
            except QuantityError as exc:
                return f"a map of quantities (entry {key!r}: {exc})"
            if quantity < Quantity.zero():  # the API server stores none below zero
                return f"a map of quantities of 0 or more (entry {key!r} is {item!r})"
        return None
    if kind == "time":
        return _time_problem(value)
    raise AssertionError(kind)  # pragma: no cover


def _time_problem(value: object) -> str | None:
    accepted = f"an RFC 3339 time (UTC) between 0001-01-01 and {_LATEST_YEAR}-01-01"
    if not isinstance(value, str):
        return accepted
    match = _RFC3339.fullmatch(value)
    if match is None:
        return accepted
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    try:
        datetime(year, month, day, hour, minute, second)
    except ValueError:
        return accepted
    zone = match.group(8)
    if zone not in ("Z", "z") and (int(zone[1:3]) > 23 or int(zone[4:6]) > 59):
        return accepted
    if not 1 <= year < _LATEST_YEAR:
        return accepted
    return None


def _object_problems(obj: Mapping[str, Any], where: list[str | int], source: str) -> list[Problem]:
    """Problems of one object against its kind's shape, naming the object and the field."""
    problems: list[Problem] = []
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    namespace = meta.get("namespace") if isinstance(meta, Mapping) else None
    label = f"{obj.get('kind')} {namespace + '/' if isinstance(namespace, str) else ''}{name}"

    def bad(loc: list[str | int], message: str, accepted: str) -> None:
        problems.append(Problem(source, field_path(loc), f"{label}: {message}", accepted))

    if not isinstance(obj.get("apiVersion"), str):
        bad([*where, "apiVersion"], f"is {describe_value(obj.get('apiVersion'))}", "a string")
    if not isinstance(meta, Mapping):
        bad([*where, "metadata"], f"is {describe_value(meta)}", "a map with a name")
        return problems
    if not isinstance(name, str) or not name:
        bad([*where, "metadata", "name"], f"is {describe_value(name)}", "a non-empty string")
    shape = {"metadata": _META, **_KINDS.get(str(obj.get("kind")), {})}
    stack: list[tuple[object, Shape, list[str | int]]] = [(obj, shape, where)]
    while stack:
        value, want, loc = stack.pop()
        if value is None:
            continue
        if isinstance(want, str):
            reason = _type_problem(value, want)
            if reason is not None:
                # An env value, say: its type and length only (kube.secretkeys).
                shown = (describe_hidden if secret_field(loc) else describe_value)(value)
                bad(loc, f"is {shown}", reason)
        elif isinstance(want, tuple):
            if not isinstance(value, list):
                bad(loc, f"is {describe_value(value)}", "a list")
                continue
            for i, item in enumerate(value):
                stack.append((item, want[1], [*loc, i]))
        else:
            if not isinstance(value, Mapping):
                bad(loc, f"is {describe_value(value)}", "a map")
                continue
            for key, sub in want.items():
                if key in value:
                    stack.append((value[key], sub, [*loc, key]))
    return problems


def _duplicate(
    obj: Mapping[str, Any],
    kind: str,
    source: str,
    where: list[str | int],
    seen: dict[ObjectKey, str],
) -> list[Problem]:
    """The object again (a node in two Lists, say): which copy counts would be chance."""
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    if not isinstance(meta, Mapping) or not isinstance(name, str) or not name:
        return []  # reported by _object_problems
    namespace = meta.get("namespace")
    place = f"{source}: {field_path(where)}"
    first = seen.setdefault((kind, str(namespace or ""), name), place)
    if first is place:
        return []
    label = f"{kind} {namespace + '/' if isinstance(namespace, str) and namespace else ''}{name}"
    return [
        Problem(
            source,
            field_path([*where, "metadata", "name"]),
            f"{label}: is also at {first}; the snapshot would keep one of them silently",
            "each object once (one kubectl get per kind, or one List)",
        )
    ]


def check_snapshot_documents(docs: Sequence[tuple[str, object]]) -> list[Problem]:
    """Every problem of a snapshot's documents, each naming the object and its field.

    A document is a ``List`` (``kind`` ending in ``List``, ``items`` a list of objects)
    or one object; each object has a string ``apiVersion`` and ``kind``, ``metadata``
    with a name, and the fields raygang reads typed as the API server types them
    (quantities, int32 counts, strings, RFC 3339 times within range).
    """
    problems: list[Problem] = []
    seen: dict[ObjectKey, str] = {}
    for source, doc in docs:
        pending: list[tuple[object, list[str | int]]] = [(doc, [])]
        while pending:
            value, where = pending.pop()
            if not isinstance(value, Mapping):
                problems.append(
                    Problem(
                        source,
                        field_path(where),
                        f"{describe_document(value)} is not a Kubernetes object",
                        "a map with apiVersion, kind and metadata (or a List of them)",
                    )
                )
                continue
            kind = value.get("kind")
            if not isinstance(kind, str) or not kind:
                problems.append(
                    Problem(
                        source,
                        field_path([*where, "kind"]),
                        f"is {describe_value(kind)}",
                        "a kind such as Node, Pod, Queue, PodGroup or List",
                    )
                )
                continue
            if kind.endswith("List"):
                items = value.get("items")
                if items is not None and not isinstance(items, list):
                    problems.append(
                        Problem(
                            source,
                            field_path([*where, "items"]),
                            f"is {describe_value(items)}",
                            "a list of objects",
                        )
                    )
                    continue
                for i, item in reversed(list(enumerate(items or []))):
                    pending.append((item, [*where, "items", i]))
                continue
            problems.extend(_object_problems(value, where, source))
            problems.extend(_duplicate(value, kind, source, where, seen))
        if len(problems) > _MAX_PROBLEMS:
            break
    if len(problems) > _MAX_PROBLEMS:
        more = len(problems) - _MAX_PROBLEMS
        problems = problems[:_MAX_PROBLEMS]
        last = problems[-1]
        problems.append(Problem(last.source, "<file>", f"and {more} more problems (or more)", ""))
    return problems


def load_snapshot(path: Path, limits: Limits | None = None) -> ClusterSnapshot:
    """Read a snapshot file through the bounded reader, validated strictly.

    ``limits`` default to ``Limits.sized`` for ``SNAPSHOT_MIB``: a snapshot is usually one
    ``List`` document, far past the 100,000 nodes a manifest document may hold (10,000 EKS
    nodes as ``kubectl get nodes -o yaml`` prints them: 66 MB, 2.9 million nodes).
    ``--snapshot-max-mib`` / ``raygang:snapshotMaxMiB`` size them otherwise, and
    ``$RAYGANG_MAX_INPUT_BYTES`` when it is larger.

    Raises:
        SpecError: the file is missing, too large, not YAML, or holds objects of the wrong
            shape (each problem names the object and the field).
    """
    label = str(path)
    if limits is None:  # $RAYGANG_MAX_INPUT_BYTES applies too, when it sizes them larger
        limits = Limits.sized(max(SNAPSHOT_MIB << 20, default_limits().max_bytes))
    documents = read_documents(path, label, limits=limits)
    many = len(documents) > 1
    docs = [(f"{label} (document {d.index})" if many else label, d.value) for d in documents]
    if not docs:
        raise SpecError.one(label, "<file>", "holds no YAML document", _ACCEPTED)
    problems = check_snapshot_documents(docs)
    if problems:
        raise SpecError(problems)
    return snapshot_from_objects([doc for _, doc in docs], label)
