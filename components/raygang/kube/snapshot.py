"""A cluster snapshot: the objects ``kubectl get ... -A -o yaml`` printed, indexed.

Preflight and lifecycle facts both read it. A snapshot is a ``v1`` ``List`` (or any
stream of such lists and single objects), for example::

    kubectl get nodes,pods,queues.scheduling.volcano.sh,podgroups.scheduling.volcano.sh,\\
      rayclusters.ray.io,jobs.batch,configmaps -A -o yaml > cluster.yaml
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from raygang.kube.errors import Problem, SpecError

__all__ = ["ClusterSnapshot", "load_snapshot", "snapshot_from_objects"]

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


def load_snapshot(path: Path) -> ClusterSnapshot:
    """Read a snapshot file.

    Raises:
        SpecError: the file is missing or is not YAML.
    """
    try:
        docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
    except OSError as exc:
        raise SpecError(
            [
                Problem(
                    str(path),
                    "<file>",
                    f"cannot be read: {exc.strerror}",
                    "the output of kubectl get ... -A -o yaml",
                )
            ]
        ) from None
    except yaml.YAMLError as exc:
        raise SpecError(
            [
                Problem(
                    str(path),
                    "<file>",
                    f"is not valid YAML: {exc}",
                    "the output of kubectl get ... -A -o yaml",
                )
            ]
        ) from None
    return snapshot_from_objects(docs, str(path))
