"""``RayClusterGang``: one RayCluster of its own registered as resources: its PodGroup,
then itself (:mod:`raygang.kuberay.clusterplan` says why in that order, and who else
writes the PodGroup)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from raygang.component.queue import VolcanoQueue, queue_after_creation
from raygang.component.resources import custom_resource
from raygang.kube.errors import SpecError
from raygang.kuberay.autoscaling import autoscaler_owned_paths
from raygang.kuberay.manifests import QUEUE_LABEL
from raygang.plan import PlannedCluster


@dataclass
class RayClusterGangArgs:
    """Inputs of :class:`RayClusterGang`.

    Attributes:
        cluster: the RayCluster planned beforehand, one of the ``clusters`` of
            :func:`raygang.plan_everything`.
        queue: the :class:`VolcanoQueue` the cluster's ``volcano.sh/queue-name`` label
            names, when this program creates it; the PodGroup then waits for it to be Open.
        companions: resources the RayCluster needs first (the objects of its file:
            :func:`~raygang.component.companions.create_companions`); its ``depends_on``
            includes them, and the PodGroup's the Namespaces among them.
        secret: the manifest comes from secret config: every input is registered as a
            secret.
    """

    cluster: PlannedCluster
    queue: VolcanoQueue | None = None
    companions: Sequence[pulumi.Resource] = ()
    secret: bool = False


class RayClusterGang(pulumi.ComponentResource):
    """One RayCluster of its own, gang-scheduled by Volcano: PodGroup → RayCluster.

    Outputs: ``pod_group_name``, ``min_member``, ``min_resources`` (as declared now: zero
    while the cluster is suspended), ``ray_cluster_name``, ``dashboard_url`` and
    ``gang_summary``.
    """

    def __init__(
        self, name: str, args: RayClusterGangArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("raygang:index:RayClusterGang", name, None, opts)
        cluster = args.cluster
        plan = cluster.plan
        if args.queue is not None and args.queue.decl.name != plan.queue:
            raise pulumi.RunError(
                str(
                    SpecError.one(
                        plan.item.source,
                        f"metadata.labels[{QUEUE_LABEL!r}]",
                        f"names queue {plan.queue!r}, but RayClusterGangArgs.queue is "
                        f"VolcanoQueue {args.queue.decl.name!r}: the PodGroup goes to the "
                        "label's queue",
                        f"{QUEUE_LABEL}: {args.queue.decl.name} on the RayCluster",
                    )
                )
            )
        #: The cluster as planned for this run (:class:`raygang.plan.PlannedCluster`).
        self.cluster: PlannedCluster = cluster
        created: dict[str, pulumi.Resource] = {}
        if args.queue is not None:
            created[f"Queue/{args.queue.decl.name}"] = args.queue
        for resource in cluster.resources:
            if resource.role == "queue":
                continue  # created once by the program, outside any gang
            deps = [created[d] for d in resource.depends_on if d in created]
            if resource.role == "raycluster":
                # The head mounts the file's ConfigMaps, runs as its ServiceAccount ... (as a
                # RayJob's RayCluster).
                deps += list(args.companions)
            elif resource.role == "podgroup":
                # The first object in the cluster's namespace: after a Namespace companion.
                deps += [c for c in args.companions if isinstance(c, k8s.core.v1.Namespace)]
            opts_i = pulumi.ResourceOptions(
                parent=self,
                depends_on=deps,
                # Fixed names: a replacement must not meet its predecessor (see RayJobGang).
                delete_before_replace=True,
                # The worker groups' sizes an autoscaling RayCluster's autoscaler sets, as
                # for a RayJob's cluster (kuberay/autoscaling.py).
                ignore_changes=list(autoscaler_owned_paths(resource.manifest)) or None,
            )
            metadata = dict(resource.manifest["metadata"])
            rname = f"{name}-{resource.role}"
            spec = None
            if resource.role == "podgroup" and args.queue is not None:
                spec = queue_after_creation(resource.manifest["spec"], args.queue)
            created[resource.ref] = custom_resource(
                rname, resource, metadata, opts_i, args.secret, spec
            )
        self.resources = created
        #: The PodGroup's name, ``ray-<cluster>-pg``.
        self.pod_group_name: pulumi.Output[str] = pulumi.Output.from_input(plan.podgroup_name)
        #: The PodGroup's ``minMember`` now (0 while suspended).
        self.min_member: pulumi.Output[int] = pulumi.Output.from_input(cluster.declared_min_member)
        #: The PodGroup's ``minResources`` now, canonical quantities.
        self.min_resources: pulumi.Output[dict[str, str]] = pulumi.Output.from_input(
            cluster.declared_min_resources
        )
        #: The RayCluster's name.
        self.ray_cluster_name: pulumi.Output[str] = pulumi.Output.from_input(plan.name)
        #: The head's dashboard URL inside the cluster.
        self.dashboard_url: pulumi.Output[str] = pulumi.Output.from_input(plan.dashboard_url)
        #: One line: minMember and minResources of the gang.
        self.gang_summary: pulumi.Output[str] = pulumi.Output.from_input(plan.gang.summary())
        self.register_outputs(
            {
                "podGroupName": self.pod_group_name,
                "minMember": self.min_member,
                "minResources": self.min_resources,
                "rayClusterName": self.ray_cluster_name,
                "dashboardUrl": self.dashboard_url,
                "gangSummary": self.gang_summary,
            }
        )
