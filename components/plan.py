"""From RayJob inputs to the ordered set of objects to create: the plan.

The plan is the single source of truth: ``raygang plan`` prints it and the Pulumi
component registers exactly its resources, in its order, with its dependencies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from components import manifests, submitter
from components.errors import Problem, SpecError
from components.gang import Accounting, Gang, compute_gang
from components.queues import QueueDecl
from components.settings import JobSettings, StackSettings, job_settings
from components.spec import RayJobInput

__all__ = ["JobPlan", "PlannedResource", "StackPlan", "plan_job", "plan_stack"]


@dataclass(frozen=True)
class PlannedResource:
    """One object to create.

    Attributes:
        role: ``queue``, ``record``, ``podgroup``, ``raycluster`` or ``submitter``.
        manifest: the object, without ownerReferences.
        depends_on: ``Kind/name`` of the objects that must exist (and be ready) first.
        owned: True when the object carries an ownerReference to the job record.
        replace_on_changes: field paths (Pulumi syntax, e.g. ``metadata.annotations``)
            whose change must replace the object instead of updating it.
    """

    role: str
    manifest: Mapping[str, Any]
    depends_on: tuple[str, ...] = ()
    owned: bool = False
    replace_on_changes: tuple[str, ...] = ()

    @property
    def api_version(self) -> str:
        """The object's apiVersion."""
        return str(self.manifest["apiVersion"])

    @property
    def kind(self) -> str:
        """The object's kind."""
        return str(self.manifest["kind"])

    @property
    def name(self) -> str:
        """The object's name."""
        return str(self.manifest["metadata"]["name"])

    @property
    def namespace(self) -> str | None:
        """The object's namespace; None for cluster-scoped objects (the Queue)."""
        ns = self.manifest["metadata"].get("namespace")
        return str(ns) if ns is not None else None

    @property
    def ref(self) -> str:
        """``Kind/name``, the form used in ``dependsOn``."""
        return f"{self.kind}/{self.name}"


@dataclass(frozen=True)
class JobPlan:
    """Everything raygang will create for one RayJob, in creation order.

    Attributes:
        item: the input.
        settings: the effective job settings (stack defaults plus annotations).
        gang: the gang under the chosen accounting.
        kuberay_gang: the gang KubeRay's adapter would compute, for comparison.
        submission_id: the Ray job submission ID.
        dashboard_address: ``<svc>.<ns>.svc.<domain>:<port>`` of the head.
        queue: the PodGroup's queue (None: Volcano's ``default``).
        queue_declared: True when the stack creates that queue.
        resources: the objects to create, in creation order.
        lifecycle: what the cluster reports and what the next ``up`` does about it
            (:mod:`components.lifecycle`); None when no facts were gathered.
        preflight: whether Volcano will admit and place the gang
            (:mod:`components.preflight`); None until preflight has run.
    """

    item: RayJobInput
    settings: JobSettings
    gang: Gang
    kuberay_gang: Gang
    submission_id: str
    dashboard_address: str
    queue: str | None
    queue_declared: bool
    resources: tuple[PlannedResource, ...]
    lifecycle: Any = None
    preflight: Any = None

    @property
    def name(self) -> str:
        """The RayJob's name."""
        return self.item.name

    @property
    def namespace(self) -> str:
        """The RayJob's namespace."""
        return self.item.namespace

    @property
    def mode(self) -> str:
        """The submission mode."""
        return self.item.job.spec.submission_mode

    @property
    def podgroup_name(self) -> str:
        """``ray-<job>-pg``."""
        return manifests.podgroup_name(self.name)

    @property
    def priority_class(self) -> str | None:
        """The PodGroup's priorityClassName, if the job sets one."""
        return self.item.job.metadata.labels.get(manifests.PRIORITY_LABEL)

    @property
    def dashboard_url(self) -> str:
        """The head's dashboard URL, with scheme."""
        return f"http://{self.dashboard_address}"

    @property
    def declared_min_member(self) -> int:
        """The PodGroup's ``minMember`` as declared now (0 once the job's cleanup zeroed it)."""
        podgroup = self.resource("podgroup")
        if podgroup is None:
            return 0
        return int(podgroup.manifest["spec"].get("minMember", 0))

    @property
    def declared_min_resources(self) -> dict[str, str]:
        """The PodGroup's ``minResources`` as declared now, canonical strings."""
        podgroup = self.resource("podgroup")
        if podgroup is None:
            return {}
        return dict(podgroup.manifest["spec"].get("minResources") or {})

    def resource(self, role: str) -> PlannedResource | None:
        """The planned object with that role, if the plan has one."""
        return next((r for r in self.resources if r.role == role), None)


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
    except OverflowError as exc:
        raise SpecError.one(
            item.source, "spec.rayClusterSpec.workerGroupSpecs", str(exc), "fewer replicas or hosts"
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
