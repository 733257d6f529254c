"""A pod template: what Kubernetes' pod validation would refuse in it.

Follows ``pkg/apis/core/validation/validation.go`` (Kubernetes): label and annotation keys
of the template, container names unique across init and regular containers, an image for
every container, port numbers, and the containers' resources (:mod:`.resources`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from raygang.kube.names import dns_problem, name_rules
from raygang.rayjob.validate.metadata import check_annotation_keys, check_labels
from raygang.rayjob.validate.read import Checker, as_int, as_list, as_map, as_str
from raygang.rayjob.validate.resources import check_resources


def check_template(c: Checker, path: str, template: Mapping[str, Any]) -> None:
    """A pod template: its metadata (pods with invalid labels are never created) and spec."""
    meta = as_map(template.get("metadata"))
    check_labels(c, f"{path}.metadata.labels", meta.get("labels"))
    check_annotation_keys(c, f"{path}.metadata.annotations", meta.get("annotations"))
    _check_pod(c, f"{path}.spec", as_map(template.get("spec")))


def _check_pod(c: Checker, path: str, pod: Mapping[str, Any]) -> None:
    """What Kubernetes' pod validation would refuse in a template's ``spec``."""
    seen: dict[str, str] = {}
    for key in ("initContainers", "containers"):
        for index, container in enumerate(as_list(pod.get(key))):
            if not isinstance(container, Mapping):
                continue
            where = f"{path}.{key}[{index}]"
            name = as_str(container.get("name"))
            if name is not None:
                why = dns_problem(name, "DNS-1123 label", 63)
                if why:
                    c.bad(
                        f"{where}.name", f"container name {why}", name_rules("DNS-1123 label", 63)
                    )
                elif name in seen:
                    c.bad(
                        f"{where}.name",
                        f"{name!r} is already the name of {seen[name]}",
                        "a container name unique within the pod (init containers included)",
                    )
                seen.setdefault(name, where)
            image = container.get("image")
            # Pods need an image; the Pod API allows omitting it only for templates that
            # a controller completes, which KubeRay and the Job controller do not.
            if image is None or image == "":
                c.bad(f"{where}.image", "is required but missing", "a container image")
            for port_index, port in enumerate(as_list(container.get("ports"))):
                number = as_int(as_map(port).get("containerPort"))
                if number is not None and not 1 <= number <= 65535:
                    c.bad(
                        f"{where}.ports[{port_index}].containerPort",
                        f"{number} is not a port number",
                        "a whole number from 1 to 65535",
                    )
            check_resources(c, f"{where}.resources", as_map(container.get("resources")))
