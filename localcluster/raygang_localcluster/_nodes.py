"""The fake nodes: kwok keeps every Node with its annotation Ready, with the resources,
labels and taints declared here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

KWOK_ANNOTATION = "kwok.x-k8s.io/node"


@dataclass(frozen=True)
class NodeShape:
    """A fake node kwok keeps Ready: its allocatable resources, labels and taints."""

    name: str
    cpu: str = "8"
    memory: str = "32Gi"
    pods: int = 110
    extra: Mapping[str, str] = field(default_factory=dict)
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: Sequence[Mapping[str, str]] = ()

    def manifest(self) -> dict[str, Any]:
        resources = {"cpu": self.cpu, "memory": self.memory, "pods": str(self.pods)}
        resources.update(self.extra)
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": self.name,
                "annotations": {KWOK_ANNOTATION: "fake", "node.alpha.kubernetes.io/ttl": "0"},
                "labels": {
                    "kubernetes.io/hostname": self.name,
                    "kubernetes.io/os": "linux",
                    "kubernetes.io/arch": "amd64",
                    "type": "kwok",
                    **self.labels,
                },
            },
            "spec": {"taints": [dict(t) for t in self.taints]},
            "status": {"allocatable": resources, "capacity": resources},
        }


DEFAULT_NODES = (
    NodeShape("kwok-node-0"),
    NodeShape("kwok-node-1"),
)
