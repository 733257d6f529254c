"""What a RayCluster document of its own may not claim: to be a RayJob's.

KubeRay marks the RayCluster a RayJob creates with ``ray.io/originated-from-crd: RayJob``
and ``ray.io/originated-from-cr-name: <job>`` (``common/job.go``,
``rayjob_controller.go``). Its Volcano adapter reads them (v1.5.0,
``batchscheduler/volcano/volcano_scheduler.go``): ``handleRayCluster`` makes no PodGroup
for a cluster whose crd label is ``RayJob``, and ``getAppPodGroupName`` points its pods at
``ray-<cr-name>-pg``, the RayJob's PodGroup, not ``ray-<cluster>-pg``. Written by hand on a
RayCluster of its own, they would leave raygang's PodGroup ``ray-<cluster>-pg`` with no pod
(or put the pods into another gang's group: two PodGroups for one cluster), and KubeRay
v1.5.0 would never recreate a lost head of a cluster it takes for a RayJob's. They are
refused.
"""

from __future__ import annotations

from collections.abc import Mapping

from raygang.kube.errors import Problem
from raygang.kuberay.manifests import ORIGIN_CRD_LABEL, ORIGIN_NAME_LABEL

__all__ = ["origin_label_problems"]


def origin_label_problems(labels: Mapping[str, str], source: str) -> list[Problem]:
    """A problem for each RayJob-origin label on a RayCluster document of its own."""
    problems = []
    crd = labels.get(ORIGIN_CRD_LABEL)
    if crd == "RayJob":
        problems.append(
            Problem(
                source,
                f"metadata.labels[{ORIGIN_CRD_LABEL!r}]",
                "is 'RayJob': it marks a RayCluster a RayJob created; KubeRay's Volcano adapter "
                "then makes no PodGroup for it and sends its pods to the RayJob's, never to "
                "the PodGroup raygang creates for this cluster",
                "no ray.io/originated-from-* label on a RayCluster of its own (write a RayJob "
                "to have its cluster made for it)",
            )
        )
    if ORIGIN_NAME_LABEL in labels:
        problems.append(
            Problem(
                source,
                f"metadata.labels[{ORIGIN_NAME_LABEL!r}]",
                f"names {labels[ORIGIN_NAME_LABEL]!r} as the KubeRay resource that created this "
                "RayCluster, which KubeRay sets on the clusters it creates; with "
                f"{ORIGIN_CRD_LABEL}: RayJob the cluster's pods would join PodGroup "
                f"ray-{labels[ORIGIN_NAME_LABEL]}-pg instead of this cluster's",
                "no ray.io/originated-from-* label on a RayCluster of its own",
            )
        )
    return problems
