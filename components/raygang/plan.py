"""From RayJob inputs to the ordered set of objects to create: the plan.

The plan is the single source of truth: ``raygang plan`` prints it and the Pulumi
component registers exactly its resources, in its order, with its dependencies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from raygang.kube.errors import Problem, SpecError
from raygang.kuberay import manifests, submitter
from raygang.kuberay.gang import Accounting, compute_gang
from raygang.kuberay.jobplan import JobPlan, PlannedResource
from raygang.kuberay.settings import JobSettings, job_settings
from raygang.rayjob.spec import RayJobInput
from raygang.settings import StackSettings
from raygang.volcano.queue import QueueDecl

__all__ = ["JobPlan", "PlannedResource", "StackPlan", "plan_job", "plan_stack"]


@dataclass(frozen=True)
class StackPlan:
    """The plan of a whole stack.

    Attributes:
        jobs: one plan per RayJob, in input order.
        queues: the queues the stack creates.
        ignored: documents of other kinds that were skipped.
    """

    jobs: tuple[JobPlan, ...]
    queues: tuple[QueueDecl, ...]
    ignored: tuple[str, ...] = field(default=())


def plan_job(
    item: RayJobInput,
    settings: JobSettings,
    declared_queues: Mapping[str, QueueDecl] | None = None,
) -> JobPlan:
    """Plan one RayJob.

    Args:
        item: a checked RayJob.
        settings: the stack's defaults; the job's ``raygang.dev/*`` annotations apply on top.
        declared_queues: queues the stack creates, by name.

    Raises:
        SpecError: settings or submitter input the job cannot be planned with.
    """
    settings = job_settings(settings, item.job.metadata.annotations, item.source)
    declared = declared_queues or {}
    job = item.job
    cluster = job.spec.ray_cluster_spec
    if cluster is None:
        raise SpecError.one(item.source, "spec.rayClusterSpec", "is required but missing")
    try:
        gang = compute_gang(job, settings.accounting)
        kuberay = (
            gang
            if settings.accounting is Accounting.KUBERAY
            else compute_gang(job, Accounting.KUBERAY)
        )
    except OverflowError as exc:  # GangOverflow names the field and what is accepted
        raise SpecError.one(
            item.source,
            getattr(exc, "path", "spec.rayClusterSpec.workerGroupSpecs"),
            str(exc),
            getattr(exc, "accepted", "fewer replicas or hosts"),
        ) from None
    spec = item.spec_view()
    try:
        sid = submitter.submission_id(item.name, spec)
        address = submitter.dashboard_url(
            item.name,
            item.namespace,
            spec["rayClusterSpec"]["headGroupSpec"],
            cluster_domain=settings.cluster_domain,
        )
    except submitter.SubmitterError as exc:
        raise SpecError([Problem(item.source, "spec", str(exc))]) from None

    labels = job.metadata.labels
    queue = labels.get(manifests.QUEUE_LABEL) if manifests.QUEUE_LABEL in labels else None
    queue_declared = queue is not None and queue in declared

    resources: list[PlannedResource] = []
    record_deps: tuple[str, ...] = ()
    if queue_declared and queue is not None:
        queue_resource = PlannedResource("queue", declared[queue].manifest())
        resources.append(queue_resource)
        record_deps = (queue_resource.ref,)
    record = PlannedResource("record", manifests.record_manifest(item, gang, sid), record_deps)
    podgroup = PlannedResource(
        "podgroup", manifests.podgroup_manifest(item, gang), (record.ref,), owned=True
    )
    try:
        cluster_manifest = manifests.raycluster_manifest(item, settings, sid)
    except submitter.SubmitterError as exc:
        raise SpecError([Problem(item.source, "spec", str(exc))]) from None
    raycluster = PlannedResource("raycluster", cluster_manifest, (podgroup.ref,), owned=True)
    resources += [record, podgroup, raycluster]
    if job.spec.submission_mode == "K8sJobMode":
        try:
            job_manifest = manifests.submitter_job_manifest(item, settings, sid, address)
        except submitter.SubmitterError as exc:
            raise SpecError([Problem(item.source, "spec", str(exc))]) from None
        resources.append(PlannedResource("submitter", job_manifest, (raycluster.ref,), owned=True))
    return JobPlan(
        item=item,
        settings=settings,
        gang=gang,
        kuberay_gang=kuberay,
        submission_id=sid,
        dashboard_address=address,
        queue=queue,
        queue_declared=queue_declared,
        resources=tuple(resources),
    )


def plan_stack(
    jobs: Sequence[RayJobInput],
    queues: Sequence[QueueDecl],
    settings: StackSettings,
    ignored: Sequence[str] = (),
) -> StackPlan:
    """Plan every job of a stack; problems in all jobs are reported together.

    Raises:
        SpecError: every problem in every job.
    """
    declared = {q.name: q for q in queues}
    plans: list[JobPlan] = []
    problems: list[Problem] = []
    for item in jobs:
        try:
            plans.append(plan_job(item, settings.defaults(), declared))
        except SpecError as exc:
            problems.extend(exc.problems)
    if problems:
        raise SpecError(problems)
    return StackPlan(tuple(plans), tuple(queues), tuple(ignored))
