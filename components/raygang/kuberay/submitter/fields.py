"""The parts of a RayJob ``spec`` the submitter reads, with a clear error for a wrong shape.

KubeRay reads them from typed Go structs (``ray-operator/apis/ray/v1/rayjob_types.go``,
``raycluster_types.go``); raygang works on the plain mapping, so a value of the wrong type
is a :class:`SubmitterError` naming its path instead of a decoding error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from raygang.kuberay.submitter._errors import SubmitterError


def get_mapping(parent: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = parent.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SubmitterError(f"{where}.{key} must be a mapping, got {type(value).__name__}")
    return value


def pod_containers(pod_spec: Mapping[str, Any], where: str) -> list[Any]:
    containers = pod_spec.get("containers")
    if not isinstance(containers, list) or not containers or not isinstance(containers[0], Mapping):
        raise SubmitterError(f"{where}.containers must list at least one container")
    return containers


def head_pod_spec(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    cluster = get_mapping(spec, "rayClusterSpec", "spec")
    head = get_mapping(cluster, "headGroupSpec", "spec.rayClusterSpec")
    template = get_mapping(head, "template", "spec.rayClusterSpec.headGroupSpec")
    return get_mapping(template, "spec", "spec.rayClusterSpec.headGroupSpec.template")


def head_image(spec: Mapping[str, Any]) -> str:
    where = "spec.rayClusterSpec.headGroupSpec.template.spec"
    image = pod_containers(head_pod_spec(spec), where)[0].get("image")
    if not isinstance(image, str) or not image:
        # KubeRay copies the head image so the submitter's `ray` matches the cluster's.
        raise SubmitterError(f"{where}.containers[0].image is required for the default submitter")
    return image
