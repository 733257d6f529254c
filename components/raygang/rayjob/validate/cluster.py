"""The ``rayClusterSpec``: what KubeRay's ``ValidateRayClusterSpec`` and the gang refuse.

Follows ``ray-operator/controllers/ray/utils/validation.go`` (KubeRay): the head group, the
SidecarMode head pod, ``managedBy``, then the cluster options (:mod:`.cluster_options`) and
the worker groups (:mod:`.groups`). A suspended RayCluster is refused because the PodGroup
would hold queue capacity for pods never created.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from raygang.kube.errors import describe_value
from raygang.rayjob.validate.cluster_options import (
    check_auth,
    check_autoscaler,
    check_fault_tolerance,
)
from raygang.rayjob.validate.groups import check_group_params, check_worker_groups
from raygang.rayjob.validate.pod import check_template
from raygang.rayjob.validate.read import Checker, as_list, as_map, as_str, env_of, str_map

SIDECAR_CONTAINER = "ray-job-submitter"

MANAGED_BY = ("ray.io/kuberay-operator", "kueue.x-k8s.io/multikueue")


def check_cluster(
    c: Checker, cluster: Mapping[str, Any], mode: str, meta: Mapping[str, Any]
) -> None:
    base = "spec.rayClusterSpec"
    scaling = cluster.get("enableInTreeAutoscaling") is True
    head = as_map(cluster.get("headGroupSpec"))
    head_pod = as_map(as_map(head.get("template")).get("spec"))
    head_path = f"{base}.headGroupSpec.template.spec"
    head_containers = as_list(head_pod.get("containers"))
    head0 = as_map(head_containers[0]) if head_containers else {}
    head_env = env_of(head0)
    annotations = str_map(meta.get("annotations"))

    if cluster.get("suspend") is True:
        c.bad(
            f"{base}.suspend",
            "a suspended RayCluster never creates its pods, while the PodGroup keeps its "
            "queue capacity",
            "remove it; suspend the job with spec.suspend: true instead",
        )
    managed = as_str(cluster.get("managedBy"))
    if managed is not None and managed != MANAGED_BY[0]:
        c.bad(
            f"{base}.managedBy",
            f"{managed!r}: the KubeRay operator does not reconcile a RayCluster managed by "
            "another controller, so its pods would never be created",
            f"{MANAGED_BY[0]}, or no managedBy",
        )
    if head:
        check_group_params(c, f"{base}.headGroupSpec", head, "Head")
        check_template(c, f"{base}.headGroupSpec.template", as_map(head.get("template")))
        _check_dashboard_port(c, head_path, head0)
    if mode == "SidecarMode":
        for index, container in enumerate(head_containers):
            if as_map(container).get("name") == SIDECAR_CONTAINER:
                c.bad(
                    f"{head_path}.containers[{index}].name",
                    f"{SIDECAR_CONTAINER!r} is the name of the submitter container SidecarMode "
                    "appends to the head pod",
                    "another container name",
                )
        policy = head_pod.get("restartPolicy")
        if policy not in (None, "Never"):
            c.bad(
                f"{head_path}.restartPolicy",
                f"restartPolicy for head Pod should be Never or unset when using SidecarMode; "
                f"got {describe_value(policy)}",
                "Never, or no restartPolicy",
            )

    check_fault_tolerance(c, cluster, head, head_env, annotations)
    check_autoscaler(c, cluster, head_pod, head_env, scaling)
    check_auth(c, cluster)

    check_worker_groups(c, cluster, scaling)


def _check_dashboard_port(c: Checker, head_path: str, head0: Mapping[str, Any]) -> None:
    ports = as_list(head0.get("ports"))
    if ports and not any(as_map(p).get("name") == "dashboard" for p in ports):
        c.bad(
            f"{head_path}.containers[0].ports",
            "declares ports but none named dashboard: KubeRay would never find the head "
            "Service's dashboard port and the job would never be submitted",
            "a port named dashboard (usually containerPort 8265), or no ports at all",
        )
