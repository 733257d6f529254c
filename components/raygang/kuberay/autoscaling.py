"""The fields of a RayCluster the Ray autoscaler writes, which ``pulumi up`` must leave alone.

With ``enableInTreeAutoscaling: true`` KubeRay runs the Ray autoscaler beside the head and
the autoscaler, not the manifest, decides each worker group's size between its
``minReplicas`` and ``maxReplicas``: it patches ``spec.workerGroupSpecs[i].replicas`` of
the live RayCluster and, to scale down chosen pods, ``spec.workerGroupSpecs[i].scaleStrategy``
(``workersToDelete``, the only field of KubeRay's ``ScaleStrategy``, ``raycluster_types.go``
v1.5.0; the patch is the Ray autoscaler's ``kuberay/node_provider.py``). After a
``pulumi refresh`` the stack's state holds the autoscaler's numbers, and without the
``ignoreChanges`` paths below the next preview would propose to put the manifest's back,
and an ``up`` would fight the autoscaler.

The paths follow Pulumi's property-path syntax (``root.list[0].field``,
https://www.pulumi.com/docs/iac/concepts/options/ignorechanges/): one per worker group, by
its index in the manifest. Pulumi then keeps the state's values for them, so the manifest's
``replicas`` only sizes a group when the RayCluster is created; the gang does not depend on
them either, since KubeRay's adapter counts ``minReplicas`` under autoscaling
(:func:`raygang.rayjob.replicas.member_replicas`). Written once here for both RayCluster
paths: a RayJob's cluster (:mod:`raygang.component.rayjobgang`) and a RayCluster of its
own (:mod:`raygang.component.rayclustergang`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["AUTOSCALER_GROUP_FIELDS", "autoscaler_owned_paths"]

#: The fields of a worker group the Ray autoscaler patches.
AUTOSCALER_GROUP_FIELDS = ("replicas", "scaleStrategy")


def autoscaler_owned_paths(manifest: Mapping[str, Any]) -> tuple[str, ...]:
    """Pulumi ``ignoreChanges`` paths of a RayCluster manifest the autoscaler owns.

    Empty for any other kind, and for a RayCluster without an explicit
    ``enableInTreeAutoscaling: true`` (KubeRay's IsAutoscalingEnabled), whose replicas
    only the manifest sets.
    """
    spec = manifest.get("spec")
    if manifest.get("kind") != "RayCluster" or not isinstance(spec, Mapping):
        return ()
    if spec.get("enableInTreeAutoscaling") is not True:
        return ()
    groups = spec.get("workerGroupSpecs") or ()
    return tuple(
        f"spec.workerGroupSpecs[{i}].{name}"
        for i in range(len(groups))
        for name in AUTOSCALER_GROUP_FIELDS
    )
