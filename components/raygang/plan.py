"""From RayJob inputs to the ordered set of objects to create: the plan.

The plan is the single source of truth: ``raygang plan`` prints it and the Pulumi
component registers exactly its resources, in its order, with its dependencies.

:func:`plan_job` plans one job (a :class:`~raygang.kuberay.jobplan.JobPlan`) and
:func:`plan_stack` every job of a stack. The planning pass (:mod:`raygang.pipeline`) then
makes one :class:`PlannedJob` per job, once: its plan, the lifecycle's decision and the
preflight's result side by side, each made by its own layer; the pass's result is a
:class:`StackPlan` of them.

Internal: not part of raygang's public surface (the names ``raygang`` exports); this module may
change without notice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from raygang.codepkg import PY_MODULES_ANNOTATION, WORKING_DIR_ANNOTATION, CodePackage
from raygang.kube.errors import Problem, SpecError
from raygang.kube.generatename import derived_from_generate_name
from raygang.kube.objects import ObjectIdentity
from raygang.kube.privilege import privilege_risks
from raygang.kube.secretkind import is_core_secret
from raygang.kuberay import codepackage, manifests, submitter
from raygang.kuberay.argsize import MAX_ARG_STRLEN, oversized_arguments
from raygang.kuberay.clusterplan import ClusterPlan, plan_cluster
from raygang.kuberay.gang import Accounting, compute_gang
from raygang.kuberay.jobplan import JobPlan, PlannedResource
from raygang.kuberay.settings import SUB_GANGS_ANNOTATION, JobSettings, job_settings
from raygang.kuberay.subgangs import job_sub_gangs
from raygang.lifecycle.model import Lifecycle
from raygang.preflight.result import PreflightResult
from raygang.rayjob.raycluster import RayClusterInput
from raygang.rayjob.spec import RayJobInput
from raygang.rayjob.validate import MAX_JOB_NAME
from raygang.settings import StackSettings
from raygang.volcano.queue import QueueDecl

__all__ = [
    "CLUSTER_SCOPED_KINDS",
    "PRIVILEGE_SETTING",
    "Companion",
    "JobPlan",
    "PlannedCluster",
    "PlannedJob",
    "PlannedResource",
    "StackPlan",
    "companions_for",
    "generate_name_prefix",
    "plan_clusters",
    "plan_job",
    "plan_stack",
    "privileged_companions",
]


# Kinds without a namespace: a companion of one of these keeps none (a namespace added to
# an APIService or a ClusterIssuer was wrong). Kubernetes' own cluster-scoped kinds, GA and
# beta as of v1.35 (`kubectl api-resources --namespaced=false`), and those of the CRDs a
# Ray platform most often carries: Volcano, Kueue, cert-manager, Karpenter, Gatekeeper,
# Kyverno, Calico, Cilium, CSI snapshots. Any other kind is taken as namespaced, as most
# custom resources are; give such an object no namespace by listing its kind here.
CLUSTER_SCOPED_KINDS = frozenset(
    {
        ("", "Namespace"),
        ("", "Node"),
        ("", "PersistentVolume"),
        ("", "ComponentStatus"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
        ("apiregistration.k8s.io", "APIService"),
        ("authentication.k8s.io", "SelfSubjectReview"),
        ("authentication.k8s.io", "TokenReview"),
        ("authorization.k8s.io", "SelfSubjectAccessReview"),
        ("authorization.k8s.io", "SelfSubjectRulesReview"),
        ("authorization.k8s.io", "SubjectAccessReview"),
        ("certificates.k8s.io", "CertificateSigningRequest"),
        ("certificates.k8s.io", "ClusterTrustBundle"),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
        ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
        ("networking.k8s.io", "IngressClass"),
        ("networking.k8s.io", "IPAddress"),
        ("networking.k8s.io", "ServiceCIDR"),
        ("node.k8s.io", "RuntimeClass"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
        ("resource.k8s.io", "DeviceClass"),
        ("resource.k8s.io", "ResourceSlice"),
        ("scheduling.k8s.io", "PriorityClass"),
        ("storage.k8s.io", "CSIDriver"),
        ("storage.k8s.io", "CSINode"),
        ("storage.k8s.io", "StorageClass"),
        ("storage.k8s.io", "VolumeAttachment"),
        ("storage.k8s.io", "VolumeAttributesClass"),
        ("snapshot.storage.k8s.io", "VolumeSnapshotClass"),
        ("snapshot.storage.k8s.io", "VolumeSnapshotContent"),
        ("scheduling.volcano.sh", "Queue"),
        ("topology.volcano.sh", "HyperNode"),
        ("kueue.x-k8s.io", "AdmissionCheck"),
        ("kueue.x-k8s.io", "ClusterQueue"),
        ("kueue.x-k8s.io", "Cohort"),
        ("kueue.x-k8s.io", "ResourceFlavor"),
        ("kueue.x-k8s.io", "Topology"),
        ("kueue.x-k8s.io", "WorkloadPriorityClass"),
        ("cert-manager.io", "ClusterIssuer"),
        ("karpenter.sh", "NodeClaim"),
        ("karpenter.sh", "NodePool"),
        ("karpenter.k8s.aws", "EC2NodeClass"),
        ("templates.gatekeeper.sh", "ConstraintTemplate"),
        ("kyverno.io", "ClusterPolicy"),
        ("crd.projectcalico.org", "GlobalNetworkPolicy"),
        ("cilium.io", "CiliumClusterwideNetworkPolicy"),
    }
)


@dataclass(frozen=True, slots=True)
class Companion(ObjectIdentity):
    """Another object of a manifest file, created beside the file's RayJobs and RayClusters.

    A companion belongs to its file: it is created once, and every RayJob and every RayCluster
    of its own of that file depends on it (the RayCluster is created after it). The manifest
    is the user's, with the namespace filled in when it had none, and nothing else changed.

    Attributes:
        source: the document it came from (``file (document 2)``).
        manifest: the object as it is created.
        jobs: ``namespace/name`` of the RayJobs and RayClusters of their own that depend on
            it (every one of its file, and of another file declaring the same object
            identically), in input order. One key names one of them: the loader refuses a
            RayCluster named as a RayJob of its namespace.
    """

    source: str
    manifest: Mapping[str, Any]
    jobs: tuple[str, ...] = ()

    @property
    def group(self) -> str:
        """The API group (``""`` for core)."""
        return self.api_version.rpartition("/")[0]

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What makes two objects the same object in a cluster: group, kind, namespace, name."""
        return (self.group, self.kind, self.namespace or "", self.name)

    @property
    def resource_name(self) -> str:
        """The Pulumi resource name: ``<namespace>/<Kind>[.<group>]/<name>``."""
        kind = f"{self.kind}.{self.group}" if self.group else self.kind
        return f"{self.namespace or 'cluster'}/{kind}/{self.name}"

    @property
    def is_namespace(self) -> bool:
        """True for a core/v1 Namespace: created before everything else."""
        return self.group == "" and self.kind == "Namespace"

    @property
    def is_secret(self) -> bool:
        """True for a core/v1 Secret: its values are never printed (one test for all outputs)."""
        return is_core_secret(self.manifest)


@dataclass(frozen=True, slots=True)
class PlannedJob:
    """One RayJob of a planning pass: its plan, the lifecycle's decision and the preflight's.

    Made once per job by the pass (:func:`raygang.pipeline.finish_job`) and never changed:
    each part comes from its own layer, and none is written into another. What this run
    registers is the lifecycle's (``resources``, ``submission_id``); what the job is (its
    name, gang, queue, settings, dashboard) is the plan's.

    Attributes:
        plan: what planning knows: the objects the job needs as a new job
            (:func:`plan_job`).
        lifecycle: what the cluster reports about the job and what this run declares
            (:func:`raygang.lifecycle.decide.decide`; planned as new without facts).
        preflight: whether Volcano will admit and place the gang
            (:func:`raygang.preflight.run.preflight_job`; ``unknown`` with a ``lifecycle``
            check when the job is finished, failed or suspended).
    """

    plan: JobPlan
    lifecycle: Lifecycle
    preflight: PreflightResult

    @property
    def resources(self) -> tuple[PlannedResource, ...]:
        """The objects this run declares, in creation order (the lifecycle's)."""
        return self.lifecycle.resources

    @property
    def submission_id(self) -> str:
        """The Ray submission ID of the current attempt (the lifecycle's)."""
        return self.lifecycle.submission_id

    def resource(self, role: str) -> PlannedResource | None:
        """The declared object with that role, if this run declares one."""
        return self.lifecycle.resource(role)

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


@dataclass(frozen=True, slots=True)
class PlannedCluster:
    """One RayCluster of its own of a planning pass: its plan, what this run declares for
    it (:mod:`raygang.lifecycle.raycluster`) and the preflight's judgement of its gang.

    Attributes:
        plan: the objects a new cluster needs (:func:`~raygang.kuberay.clusterplan.plan_cluster`).
        resources: the objects this run declares, in creation order (the PodGroup zeroed
            when the cluster is suspended).
        actions: what this run does to the gang, in words.
        preflight: whether Volcano will admit and place the gang (``unknown`` with a
            ``lifecycle`` check when the cluster is suspended).
    """

    plan: ClusterPlan
    resources: tuple[PlannedResource, ...]
    actions: tuple[str, ...]
    preflight: PreflightResult

    def resource(self, role: str) -> PlannedResource | None:
        """The declared object with that role, if this run declares one."""
        return next((r for r in self.resources if r.role == role), None)

    @property
    def declared_min_member(self) -> int:
        """The PodGroup's ``minMember`` as declared now (0 while the cluster is suspended)."""
        podgroup = self.resource("podgroup")
        return int(podgroup.manifest["spec"].get("minMember", 0)) if podgroup else 0

    @property
    def declared_min_resources(self) -> dict[str, str]:
        """The PodGroup's ``minResources`` as declared now, canonical strings."""
        podgroup = self.resource("podgroup")
        return dict(podgroup.manifest["spec"].get("minResources") or {}) if podgroup else {}


@dataclass(frozen=True, slots=True)
class StackPlan:
    """The plan of a whole stack: what a planning pass (:mod:`raygang.pipeline`) returns.

    Attributes:
        jobs: one record per RayJob, in input order.
        queues: the queues the stack creates.
        ignored: notes on what was read but not planned.
        companions: the other objects of the files of the jobs and clusters, created before
            the RayClusters.
        clusters: one record per RayCluster of its own, in input order.
    """

    jobs: tuple[PlannedJob, ...]
    queues: tuple[QueueDecl, ...]
    ignored: tuple[str, ...] = field(default=())
    companions: tuple[Companion, ...] = field(default=())
    clusters: tuple[PlannedCluster, ...] = field(default=())

    def companions_of(self, job: PlannedJob | PlannedCluster) -> tuple[Companion, ...]:
        """The companions a job or a RayCluster of its own depends on, in creation order."""
        return companions_for(self.companions, job.plan.namespace, job.plan.name)


def companions_for(
    companions: Sequence[Companion], namespace: str, name: str
) -> tuple[Companion, ...]:
    """The companions the RayJob or RayCluster of its own ``namespace/name`` depends on, in
    their order: those whose :attr:`Companion.jobs` name it.

    The one rule behind :meth:`StackPlan.companions_of` and the loader's
    ``Documents.companions_of`` (the loader sits above the plan and imports it).
    """
    key = f"{namespace}/{name}"
    return tuple(c for c in companions if key in c.jobs)


def generate_name_prefix(item: RayJobInput) -> str | None:
    """The ``generateName`` a job's name was derived from, or None when it was given."""
    return derived_from_generate_name(item.raw, MAX_JOB_NAME)


# What the lifecycle adds to the record's annotations later (attempts, the base submission
# ID, the finish time and result), with room to spare.
_RECORD_LIFECYCLE_RESERVE = 1024


def _check_record_size(item: RayJobInput, record: Mapping[str, Any]) -> None:
    """Refuse a job whose record would not fit in an object's annotations (256 KiB).

    The record keeps the RayJob (without secret values) and its gang in annotations
    (:func:`raygang.kuberay.manifests.record_manifest`); the API server refuses the whole
    ConfigMap past :data:`~raygang.kuberay.manifests.RECORD_ANNOTATIONS_LIMIT`, which would
    leave the job half created.
    """
    annotations = record["metadata"]["annotations"]
    size = manifests.annotations_size(annotations) + _RECORD_LIFECYCLE_RESERVE
    limit = manifests.RECORD_ANNOTATIONS_LIMIT
    if size > limit:
        rayjob = len(annotations[manifests.RECORD_RAYJOB].encode("utf-8"))
        raise SpecError.one(
            item.source,
            "<document>",
            f"is too large for its job record: ConfigMap {item.namespace}/{item.name} keeps "
            f"it as indented JSON in annotation {manifests.RECORD_RAYJOB} ({rayjob} bytes), "
            f"and with the gang and the lifecycle's values its annotations would be {size} "
            f"bytes, over the {limit} bytes (256 KiB) Kubernetes allows for an object's "
            "annotations (metadata.annotations)",
            f"a RayJob whose indented JSON is under about {limit - (size - rayjob)} bytes",
        )


def _check_code(item: RayJobInput, code: CodePackage | None, resubmit: int) -> None:
    """Refuse a code package (or a resubmit counter) the job could not run with.

    Only the K8sJobMode submitter mounts a package (heads and workers are untouched); a
    ``spec.jobId`` pins the submission ID, so a new version or a resubmission could never be
    submitted; ``runtimeEnvYAML``'s own ``working_dir`` would be overridden by
    ``--working-dir`` (Ray warns, the job would silently run other code).
    """
    annotations = item.job.metadata.annotations
    named = WORKING_DIR_ANNOTATION if WORKING_DIR_ANNOTATION in annotations else None
    if named is None and PY_MODULES_ANNOTATION in annotations:
        named = PY_MODULES_ANNOTATION
    field = f"metadata.annotations[{named or WORKING_DIR_ANNOTATION!r}]"
    if named is not None and code is None:
        raise SpecError.one(
            item.source,
            field,
            "names a local directory, which only raygang's file loader packs (raygang plan "
            "FILE, raygang:manifests, raygang:jobs)",
            "load the RayJob with load_files, or give runtimeEnvYAML a remote working_dir",
        )
    if code is None and not resubmit:
        return
    what = (
        field if code is not None else f"metadata.annotations[{codepackage.RESUBMIT_ANNOTATION!r}]"
    )
    problems = []
    if item.job.spec.job_id:
        problems.append(
            Problem(
                item.source,
                what,
                "cannot be used with spec.jobId: a fixed submission ID could never submit a new "
                "version or run the job again",
                "no spec.jobId: raygang derives the ID from the spec and the package",
            )
        )
    if code is not None and item.job.spec.submission_mode != submitter.K8S_JOB_MODE:
        problems.append(
            Problem(
                item.source,
                field,
                f"needs spec.submissionMode K8sJobMode (got {item.job.spec.submission_mode}): "
                "only the submitter Job mounts the package",
                "K8sJobMode, or a remote working_dir in runtimeEnvYAML",
            )
        )
    runtime_env = item.job.spec.runtime_env_yaml
    if code is not None and code.has_working_dir and runtime_env is not None:
        data = submitter.runtime_env_data(runtime_env)
        if isinstance(data, Mapping) and "working_dir" in data:
            problems.append(
                Problem(
                    item.source,
                    "spec.runtimeEnvYAML",
                    f"sets working_dir, and {WORKING_DIR_ANNOTATION} names one too",
                    "one of them",
                )
            )
    if problems:
        raise SpecError(problems)


def plan_job(
    item: RayJobInput,
    settings: JobSettings,
    declared_queues: Mapping[str, QueueDecl] | None = None,
    code: CodePackage | None = None,
) -> JobPlan:
    """Plan one RayJob.

    Args:
        item: a checked RayJob.
        settings: the stack's defaults; the job's ``raygang.dev/*`` annotations apply on top.
        declared_queues: queues the stack creates, by name.
        code: the job's code package, packed by the loader from ``raygang.dev/working-dir``.

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
    resubmit = codepackage.resubmit_count(item.job.metadata.annotations, item.source)
    _check_code(item, code, resubmit)
    try:
        sid = submitter.submission_id(item, code.sha256 if code is not None else None, resubmit)
        address = submitter.dashboard_url(
            item.name,
            item.namespace,
            cluster.head_group_spec,
            # The model does not hold headService (dashboard_url says why): as written.
            item.spec_view()["rayClusterSpec"]["headGroupSpec"].get("headService"),
            cluster_domain=settings.cluster_domain,
        )
    except submitter.SubmitterError as exc:
        raise SpecError([Problem(item.source, "spec", str(exc))]) from None

    sub_gangs = job_sub_gangs(item, settings)
    labels = job.metadata.labels
    queue = labels.get(manifests.QUEUE_LABEL) if manifests.QUEUE_LABEL in labels else None
    queue_declared = queue is not None and queue in declared

    resources: list[PlannedResource] = []
    record_deps: tuple[str, ...] = ()
    if queue_declared and queue is not None:
        queue_resource = PlannedResource("queue", declared[queue].manifest())
        resources.append(queue_resource)
        record_deps = (queue_resource.ref,)
    record_manifest = manifests.record_manifest(
        item,
        gang,
        sid,
        {manifests.CODE_PACKAGE_ANNOTATION: code.sha256} if code is not None else None,
    )
    _check_record_size(item, record_manifest)
    record = PlannedResource("record", record_manifest, record_deps)
    pieces = [
        PlannedResource(f"code-{i}", manifest, (record.ref,), owned=True)
        for i, manifest in enumerate(
            codepackage.code_config_maps(item.name, item.namespace, code) if code else ()
        )
    ]
    podgroup = PlannedResource(
        "podgroup", manifests.podgroup_manifest(item, gang, sub_gangs), (record.ref,), owned=True
    )
    try:
        cluster_manifest = manifests.raycluster_manifest(item, settings, sid)
    except submitter.SubmitterError as exc:
        raise SpecError([Problem(item.source, "spec", str(exc))]) from None
    raycluster = PlannedResource("raycluster", cluster_manifest, (podgroup.ref,), owned=True)
    resources += [record, *pieces, podgroup, raycluster]
    if job.spec.submission_mode == "K8sJobMode":
        mount = codepackage.code_mount(item.name, code) if code is not None else None
        try:
            job_manifest = manifests.submitter_job_manifest(item, settings, sid, address, mount)
        except submitter.SubmitterError as exc:
            raise SpecError([Problem(item.source, "spec", str(exc))]) from None
        resources.append(
            PlannedResource(
                "submitter",
                job_manifest,
                (raycluster.ref, *(piece.ref for piece in pieces)),
                owned=True,
            )
        )
    _check_arguments(item, resources)
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
        sub_gangs=sub_gangs,
        code=code,
        resubmit=resubmit,
    )


def _pod_specs(resource: PlannedResource) -> list[tuple[str, Mapping[str, Any]]]:
    spec = resource.manifest.get("spec") or {}
    if resource.role == "submitter":
        return [("the submitter Job", spec["template"]["spec"])]
    if resource.role != "raycluster":
        return []
    head = [("the head", spec["headGroupSpec"]["template"]["spec"])]
    workers = spec.get("workerGroupSpecs") or []
    return head + [
        (f"worker group {w.get('groupName')}", w["template"]["spec"])
        for w in workers
        if isinstance(w, Mapping) and isinstance(w.get("template"), Mapping)
    ]


def _check_arguments(item: RayJobInput, resources: Sequence[PlannedResource]) -> None:
    """Refuse what the kernel would not start: see :mod:`raygang.kuberay.argsize`."""
    problems = []
    for resource in resources:
        for pod, spec in _pod_specs(resource):
            for where, size in oversized_arguments(spec):
                problems.append(
                    Problem(
                        item.source,
                        # The submitter's script is KubeRay's: the entrypoint makes it long.
                        "spec.entrypoint"
                        if submitter.SUBMITTER_CONTAINER_NAME in where
                        else "spec",
                        f"{pod}'s {where} would be {size:,} bytes, more than the "
                        f"{MAX_ARG_STRLEN:,} Linux passes in one argument or environment "
                        "string (MAX_ARG_STRLEN): the pod could never start",
                        "an entrypoint, runtimeEnvYAML and env values that fit; ship a long "
                        "script in working_dir or a ConfigMap and run it by name",
                    )
                )
    if problems:
        raise SpecError(problems)


def plan_stack(
    jobs: Sequence[RayJobInput],
    queues: Sequence[QueueDecl],
    settings: StackSettings,
    companions: Sequence[Companion] = (),
    packages: Mapping[str, CodePackage] | None = None,
) -> tuple[JobPlan, ...]:
    """Plan every job of a stack, in input order; problems in all jobs are reported together.

    ``packages``: the jobs' code packages by ``namespace/name`` (the loader's).

    Raises:
        SpecError: every problem in every job, and companions that would be one of the
            objects raygang creates for a job.
    """
    declared = {q.name: q for q in queues}
    defaults = settings.defaults()
    plans: list[JobPlan] = []
    problems: list[Problem] = []
    for item in jobs:
        try:
            code = (packages or {}).get(f"{item.namespace}/{item.name}")
            plans.append(plan_job(item, defaults, declared, code))
        except SpecError as exc:
            problems.extend(exc.problems)
    problems += _companion_clashes(plans, companions)
    if settings.refuse_privileged_companions:
        problems += privileged_companions(companions)
    if problems:
        raise SpecError(problems)
    return tuple(plans)


def unsupported_sub_gangs(
    plans: Sequence[JobPlan], podgroup_fields: frozenset[str]
) -> list[Problem]:
    """Jobs with sub-gangs when the installed PodGroup CRD has no ``subGroupPolicy``.

    The API server would prune the field without a word (a structural schema keeps only
    the fields it declares), and Volcano would schedule the whole gang as one: refused.
    """
    if "subGroupPolicy" in podgroup_fields:
        return []
    return [
        Problem(
            plan.item.source,
            (
                f"metadata.annotations[{SUB_GANGS_ANNOTATION!r}]"
                if SUB_GANGS_ANNOTATION in plan.item.job.metadata.annotations
                else "raygang:subGangs"
            ),
            f"asks for sub-gangs (worker group {', '.join(g.group for g in plan.sub_gangs)}), "
            "but the cluster's PodGroup CRD (podgroups.scheduling.volcano.sh, v1beta1) has no "
            "spec.subGroupPolicy: the API server would drop it and Volcano would place the "
            "gang as one",
            "Volcano v1.14 or later (its PodGroup CRD), or sub-gangs turned off",
        )
        for plan in plans
        if plan.sub_gangs
    ]


def plan_clusters(
    clusters: Sequence[RayClusterInput],
    queues: Sequence[QueueDecl],
    settings: StackSettings,
    companions: Sequence[Companion] = (),
) -> tuple[ClusterPlan, ...]:
    """Plan every RayCluster of its own, in input order; problems reported together.

    Raises:
        SpecError: every problem in every cluster, and companions that would be one of the
            objects raygang creates for a cluster.
    """
    declared = {q.name: q.manifest() for q in queues}
    defaults = settings.defaults()
    plans: list[ClusterPlan] = []
    problems: list[Problem] = []
    for item in clusters:
        try:
            plans.append(plan_cluster(item, defaults, declared))
        except SpecError as exc:
            problems.extend(exc.problems)
    problems += _clashes(
        [(f"RayCluster {p.namespace}/{p.name}", p.resources) for p in plans], companions
    )
    if problems:
        raise SpecError(problems)
    return tuple(plans)


PRIVILEGE_SETTING = "raygang:refusePrivilegedCompanions"


def privileged_companions(companions: Sequence[Companion]) -> list[Problem]:
    """Companions that grant cluster-wide rights or intercept admission
    (:mod:`raygang.kube.privilege`): warnings, or errors under :data:`PRIVILEGE_SETTING`."""
    problems = []
    for companion in companions:
        where = f"{companion.namespace}/" if companion.namespace else ""
        for path, what in privilege_risks(companion.manifest):
            problems.append(
                Problem(
                    companion.source,
                    path,
                    f"{companion.kind} {where}{companion.name} {what}",
                    "rights in the jobs' own namespace; create cluster-wide RBAC and admission "
                    f"webhooks outside the stack, or set {PRIVILEGE_SETTING}: false",
                )
            )
    return problems


def _companion_clashes(plans: Sequence[JobPlan], companions: Sequence[Companion]) -> list[Problem]:
    """Companions that are also an object raygang creates: two resources, one object."""
    return _clashes([(f"RayJob {j.namespace}/{j.name}", j.resources) for j in plans], companions)


def _clashes(
    owners: Sequence[tuple[str, Sequence[PlannedResource]]], companions: Sequence[Companion]
) -> list[Problem]:
    """Companions that are one of the owners' objects (``owners``: what names each owner
    in messages, and its objects)."""
    ours: dict[tuple[str, str, str, str], str] = {}
    for owner, resources in owners:
        for resource in resources:
            group = resource.api_version.rpartition("/")[0]
            key = (group, resource.kind, resource.namespace or "", resource.name)
            ours.setdefault(key, f"{resource.role} of {owner}")
    problems = []
    for companion in companions:
        what = ours.get(companion.key)
        if what is not None:
            where = f"{companion.namespace}/" if companion.namespace else ""
            problems.append(
                Problem(
                    companion.source,
                    "metadata.name",
                    f"{companion.kind} {where}{companion.name} is the {what}, which raygang "
                    "creates itself",
                    "another name for this object",
                )
            )
    return problems
