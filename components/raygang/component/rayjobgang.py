"""``RayJobGang``: one RayJob's planned objects registered as resources, in order, with
their ownerReferences and ``depends_on``."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from raygang.component.args import RayJobGangArgs
from raygang.component.planning import job_from_args
from raygang.component.queue import queue_after_creation
from raygang.component.resources import custom_resource, or_run_error, secret_input
from raygang.kuberay.autoscaling import autoscaler_owned_paths
from raygang.kuberay.manifests import owner_reference
from raygang.plan import PlannedJob


class RayJobGang(pulumi.ComponentResource):
    """One RayJob, gang-scheduled by Volcano: record → PodGroup → RayCluster → submitter.

    Outputs: ``pod_group_name``, ``min_member``, ``min_resources``, ``ray_cluster_name``,
    ``submitter_job_name`` (None outside K8sJobMode), ``submission_id``, ``dashboard_url``
    and ``gang_summary``.

    Args:
        name: the Pulumi resource name (``<namespace>/<job>`` in the stack program).
        args: the manifest or planned job, settings and queue.
        opts: the usual resource options; children inherit provider and parent.
    """

    def __init__(
        self, name: str, args: RayJobGangArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("raygang:index:RayJobGang", name, None, opts)
        job = or_run_error(lambda: job_from_args(args))
        #: The job as planned for this run (:class:`raygang.plan.PlannedJob`).
        self.job: PlannedJob = job
        plan = job.plan
        created: dict[str, pulumi.Resource] = {}
        if args.queue is not None:
            created[f"Queue/{args.queue.decl.name}"] = args.queue
        record_uid: pulumi.Output[str] | None = None
        ignored = job.lifecycle.ignore_changes

        for resource in job.resources:
            if resource.role == "queue":
                # Queues are shared by the stack's jobs and created once, outside any job.
                continue
            deps = [created[d] for d in resource.depends_on if d in created]
            if resource.role == "raycluster":
                # The head mounts the file's ConfigMaps, runs as its ServiceAccount ...
                deps += list(args.companions)
            elif resource.role == "record":
                # The first object in the job's namespace: after a Namespace companion.
                deps += [c for c in args.companions if isinstance(c, k8s.core.v1.Namespace)]
            # Children inherit provider and the rest of ``opts`` through ``parent``.
            opts_i = pulumi.ResourceOptions(
                parent=self,
                depends_on=deps,
                replace_on_changes=list(resource.replace_on_changes) or None,
                # The lifecycle's paths, and the worker groups' sizes an autoscaling
                # RayCluster's autoscaler sets (kuberay/autoscaling.py).
                ignore_changes=[
                    *ignored.get(resource.role, ()),
                    *autoscaler_owned_paths(resource.manifest),
                ]
                or None,
                # Every object has a fixed name, so a replacement created before the old one
                # is deleted meets it under the same name: the real API server answered a
                # queue change's PodGroup with a server-side apply conflict on .spec.queue.
                delete_before_replace=True,
            )
            metadata = dict(resource.manifest["metadata"])
            if resource.owned and record_uid is not None:
                metadata["ownerReferences"] = [owner_reference(plan.name, record_uid)]
            rname = f"{name}-{resource.role}"
            made: pulumi.Resource
            secret = args.secret
            if resource.role == "record":
                # Everything in metadata.annotations: the provider updates metadata in place
                # but replaces a ConfigMap whose data changes, and a replaced record (a new
                # UID) would take the PodGroup, RayCluster and Job it owns with it. Only a
                # record of an earlier raygang still has data, kept as it was.
                legacy = resource.manifest.get("data")
                record = k8s.core.v1.ConfigMap(
                    rname,
                    metadata=secret_input(metadata, secret),
                    data=secret_input(dict(legacy), secret) if legacy else None,
                    opts=opts_i,
                )
                record_uid = record.metadata.apply(lambda m: m.uid)
                made = record
            elif resource.role.startswith("code-"):
                # A piece of the job's code package (issue 28): immutable, named by its
                # hash, so a new version is a new ConfigMap and never an update.
                made = k8s.core.v1.ConfigMap(
                    rname,
                    metadata=secret_input(metadata, secret),
                    binary_data=dict(resource.manifest["binaryData"]),
                    immutable=True,
                    opts=opts_i,
                )
            elif resource.role == "submitter":
                made = k8s.batch.v1.Job(
                    rname,
                    metadata=secret_input(metadata, secret),
                    spec=secret_input(resource.manifest["spec"], secret),
                    opts=opts_i,
                )
            elif resource.role == "podgroup" and args.queue is not None:
                spec = queue_after_creation(resource.manifest["spec"], args.queue)
                made = custom_resource(rname, resource, metadata, opts_i, secret, spec)
            else:
                made = custom_resource(rname, resource, metadata, opts_i, secret)
            created[resource.ref] = made
        self.resources = created

        # Every output is known at plan time.
        submitter = job.resource("submitter")
        #: The PodGroup's name, ``ray-<job>-pg``.
        self.pod_group_name: pulumi.Output[str] = pulumi.Output.from_input(plan.podgroup_name)
        #: The PodGroup's ``minMember`` now (the lifecycle zeroes it after the job).
        self.min_member: pulumi.Output[int] = pulumi.Output.from_input(job.declared_min_member)
        #: The PodGroup's ``minResources`` now, canonical quantities.
        self.min_resources: pulumi.Output[dict[str, str]] = pulumi.Output.from_input(
            job.declared_min_resources
        )
        #: The RayCluster's name (the job's).
        self.ray_cluster_name: pulumi.Output[str] = pulumi.Output.from_input(plan.name)
        #: The submitter Job's name; None outside K8sJobMode.
        self.submitter_job_name: pulumi.Output[str | None] = pulumi.Output.from_input(
            submitter.name if submitter else None
        )
        #: The Ray job submission ID the submitter uses.
        self.submission_id: pulumi.Output[str] = pulumi.Output.from_input(job.submission_id)
        #: The head's dashboard URL inside the cluster.
        self.dashboard_url: pulumi.Output[str] = pulumi.Output.from_input(plan.dashboard_url)
        #: One line: minMember and minResources, e.g. ``minMember 3, cpu 5500m, memory 10752Mi``.
        self.gang_summary: pulumi.Output[str] = pulumi.Output.from_input(plan.gang.summary())
        self.register_outputs(
            {
                "podGroupName": self.pod_group_name,
                "minMember": self.min_member,
                "minResources": self.min_resources,
                "rayClusterName": self.ray_cluster_name,
                "submitterJobName": self.submitter_job_name,
                "submissionId": self.submission_id,
                "dashboardUrl": self.dashboard_url,
                "gangSummary": self.gang_summary,
            }
        )
