"""The small RayJob the real-engine tests deploy: one head and worker group of 1 cpu / 1Gi pods.

kwok runs no containers, so the entrypoint never runs; in K8sJobMode kwok finishes the
submitter's pod at once, in SidecarMode the head's submitter never exits.
"""

from __future__ import annotations

from typing import Any

__all__ = ["small_rayjob"]

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
