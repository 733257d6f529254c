"""The small RayJob the real-engine tests deploy: one head and worker group of 1 cpu / 1Gi pods;
and the small RayCluster of its own: a head, a 1-cpu group and a group of 2-host replicas.

kwok runs no containers, so the entrypoint never runs; in K8sJobMode kwok finishes the
submitter's pod at once, in SidecarMode the head's submitter never exits.
"""

from __future__ import annotations

from typing import Any

__all__ = ["container", "small_raycluster", "small_rayjob"]

_CONTAINER = {
    "image": "rayproject/ray:2.52.0",
    "resources": {"requests": {"cpu": "1", "memory": "1Gi"}},
}


def small_rayjob(
    name: str,
    queue: str,
    *,
    namespace: str = "default",
    replicas: int = 1,
    head_pod: dict[str, Any] | None = None,
    worker_pod: dict[str, Any] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    """The RayJob ``name`` in ``queue``; ``head_pod``/``worker_pod`` add pod-spec fields
    (a nodeSelector), ``spec`` adds or replaces RayJob spec fields."""
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"volcano.sh/queue-name": queue},
        },
        "spec": {
            "entrypoint": "python -c 'print(1)'",
            "rayClusterSpec": {
                "rayVersion": "2.52.0",
                "headGroupSpec": {
                    "rayStartParams": {},
                    "template": {
                        "spec": {
                            **(head_pod or {}),
                            "containers": [{"name": "ray-head", **_CONTAINER}],
                        }
                    },
                },
                "workerGroupSpecs": [
                    {
                        "groupName": "w",
                        "replicas": replicas,
                        "minReplicas": replicas,
                        "maxReplicas": replicas,
                        "rayStartParams": {},
                        "template": {
                            "spec": {
                                **(worker_pod or {}),
                                "containers": [{"name": "ray-worker", **_CONTAINER}],
                            }
                        },
                    }
                ],
            },
            **spec,
        },
    }


def container(name: str, cpu: str, memory: str) -> dict[str, Any]:
    """A container of the Ray image requesting ``cpu`` and ``memory``."""
    return {
        "name": name,
        "image": "rayproject/ray:2.52.0",
        "resources": {"requests": {"cpu": cpu, "memory": memory}},
    }


def small_raycluster(
    name: str,
    queue: str,
    *,
    namespace: str = "default",
    replicas: int = 1,
    autoscaling: bool = False,
    head_init: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The RayCluster ``name`` in ``queue``: a 1 cpu / 1Gi head (``head_init``: an init
    container of its pod), group ``cpu`` of ``replicas`` 1 cpu / 1Gi pods (1..4), group
    ``pairs`` of one 2-host replica of 500m / 512Mi pods (0..3 with ``autoscaling``, which
    turns the in-tree autoscaler on)."""
    head: dict[str, Any] = {"containers": [container("ray-head", "1", "1Gi")]}
    if head_init is not None:
        head = {"initContainers": [head_init], **head}
    pairs: dict[str, Any] = {"groupName": "pairs", "replicas": 1}
    if autoscaling:
        pairs.update(minReplicas=0, maxReplicas=3)
    pairs.update(
        numOfHosts=2,
        rayStartParams={},
        template={"spec": {"containers": [container("ray-worker", "500m", "512Mi")]}},
    )
    spec: dict[str, Any] = {"rayVersion": "2.52.0"}
    if autoscaling:
        spec["enableInTreeAutoscaling"] = True
    spec["headGroupSpec"] = {"rayStartParams": {}, "template": {"spec": head}}
    spec["workerGroupSpecs"] = [
        {
            "groupName": "cpu",
            "replicas": replicas,
            "minReplicas": 1,
            "maxReplicas": 4,
            "rayStartParams": {},
            "template": {"spec": {"containers": [container("ray-worker", "1", "1Gi")]}},
        },
        pairs,
    ]
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"volcano.sh/queue-name": queue},
        },
        "spec": spec,
    }
