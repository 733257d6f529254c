"""The Pulumi layer: register a plan's objects as ``pulumi_kubernetes`` resources.

Nothing here computes anything. :func:`raygang.plan.plan_job` decides every object,
its order and its dependencies; these classes turn each planned object into one resource,
add the ownerReferences whose UIDs only exist after creation, and wire ``depends_on``.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes import _utilities as k8s_utilities
from pulumi_kubernetes.apiextensions import CustomResource

from raygang.kube.errors import SpecError
from raygang.kube.snapshot import ClusterSnapshot
from raygang.kuberay.jobplan import JobPlan, PlannedResource
from raygang.kuberay.manifests import QUEUE_LABEL, owner_reference
from raygang.kuberay.settings import JobSettings
from raygang.loader import load_rayjob_document
from raygang.pipeline import finish_job
from raygang.plan import Companion, plan_job
from raygang.volcano.queue import QueueDecl, parse_queue

__all__ = [
    "RayJobGang",
    "RayJobGangArgs",
    "VolcanoQueue",
    "create_companion",
    "create_companions",
]


def _custom(
    name: str,
    resource: PlannedResource,
    metadata: Any,
    opts: pulumi.ResourceOptions,
    secret: bool = False,
    spec: Any = None,
) -> CustomResource:
    manifest = resource.manifest
    return CustomResource(
        name,
        api_version=resource.api_version,
        kind=resource.kind,
        metadata=_secret(metadata, secret),
        spec=_secret(manifest.get("spec") if spec is None else spec, secret),
        opts=opts,
    )


def _queue_after_creation(spec: Mapping[str, Any], queue: VolcanoQueue) -> dict[str, Any]:
    """The PodGroup's ``spec.queue``, known only once the Queue has an ID.

    ``pulumi preview`` dry-runs each create on the API server; Volcano's admission webhook
    refuses a PodGroup whose queue does not exist ("unable to find queue"), so the first
    preview of a stack that creates its queue failed (seen against the real webhook). Read
    from the Queue's ID, the field is unknown while the Queue is still to be created, and the
    provider then skips that dry-run; once the Queue exists it is the plain name again.
    """
    name = str(spec["queue"])
    return {**spec, "queue": queue.queue.id.apply(lambda _: name)}


def _secret(value: Any, secret: bool) -> Any:
    """``value`` as a secret input when it comes from secret config: encrypted in the state,
    ``[secret]`` in previews and diffs."""
    return pulumi.Output.secret(value) if secret else value


# --- companions: any Kubernetes object, created as it is written ------------------------
# Built-in API groups whose kinds pulumi_kubernetes has a class for (the module is the
# group's first label): those classes know the kind's secret fields and aliases.
_GROUP_MODULES = {"": "core", "rbac.authorization.k8s.io": "rbac"}
_BARE_GROUPS = frozenset({"apps", "batch", "policy", "autoscaling"})
_FIXED = frozenset({"resource_name", "opts", "__props__", "api_version", "kind"})


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()


@functools.lru_cache(maxsize=256)
def _typed_class(api_version: str, kind: str) -> tuple[type[Any], frozenset[str]] | None:
    """pulumi_kubernetes' class for a built-in kind, with its field names; None otherwise."""
    group, _, version = api_version.rpartition("/")
    module = _GROUP_MODULES.get(group)
    if module is None:
        if group in _BARE_GROUPS:
            module = group
        elif group.endswith(".k8s.io") and "." not in group.removesuffix(".k8s.io"):
            module = group.removesuffix(".k8s.io")
        else:
            return None
    try:
        found = getattr(importlib.import_module(f"pulumi_kubernetes.{module}.{version}"), kind)
    except (ImportError, AttributeError):
        return None
    if not (isinstance(found, type) and issubclass(found, pulumi.CustomResource)):
        return None
    typed: Any = found
    fields = frozenset(inspect.signature(typed._internal_init).parameters) - _FIXED
    return found, fields


class _PassThrough(pulumi.CustomResource):
    """A kind pulumi_kubernetes has no class for, with fields besides ``spec``: sent whole."""

    def __init__(self, name: str, manifest: Mapping[str, Any], opts: pulumi.ResourceOptions):
        opts = pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(version=k8s_utilities.get_version())
        )
        props = {k: v for k, v in manifest.items() if k != "status"}
        super().__init__(
            f"kubernetes:{manifest['apiVersion']}:{manifest['kind']}", name, props, opts
        )


def create_companion(
    companion: Companion, opts: pulumi.ResourceOptions | None = None
) -> pulumi.CustomResource:
    """Create a companion object unchanged, with pulumi_kubernetes' class for its kind.

    Built-in kinds get their typed class (a Secret's ``data`` and ``stringData`` are then
    secret outputs, as pulumi_kubernetes makes them); any other kind is a
    :class:`~pulumi_kubernetes.apiextensions.CustomResource`. The Pulumi name is
    :attr:`Companion.resource_name`.

    Raises:
        pulumi.RunError: a top-level field the kind's class does not have.
    """
    manifest = companion.manifest
    fields = {k: v for k, v in manifest.items() if k not in ("apiVersion", "kind", "status")}
    opts = opts or pulumi.ResourceOptions()
    typed = _typed_class(companion.api_version, companion.kind)
    if typed is not None:
        cls, known = typed
        kwargs = {_snake(k): v for k, v in fields.items()}
        unknown = sorted(k for k in fields if _snake(k) not in known)
        if unknown:
            raise pulumi.RunError(
                f"raygang: {companion.source}: {companion.kind} has no field "
                f"{', '.join(unknown)} (pulumi_kubernetes {cls.__module__}.{cls.__name__})"
            )
        if companion.is_secret:
            opts = pulumi.ResourceOptions.merge(
                opts, pulumi.ResourceOptions(additional_secret_outputs=["data", "stringData"])
            )
        return cast(pulumi.CustomResource, cls(companion.resource_name, opts=opts, **kwargs))
    if set(fields) <= {"metadata", "spec"}:
        generic: pulumi.CustomResource = CustomResource(
            companion.resource_name,
            api_version=companion.api_version,
            kind=companion.kind,
            metadata=fields.get("metadata"),
            spec=fields.get("spec"),
            opts=opts,
        )
        return generic
    return _PassThrough(companion.resource_name, manifest, opts)


def create_companions(
    companions: Sequence[Companion], opts: pulumi.ResourceOptions | None = None
) -> dict[tuple[str, str, str, str], pulumi.CustomResource]:
    """Create companions, Namespaces among them first, keyed by :attr:`Companion.key`.

    Every other companion depends on the Namespaces, so objects in a namespace the same
    files create are created after it.
    """
    made: dict[tuple[str, str, str, str], pulumi.CustomResource] = {}
    namespaces = [c for c in companions if c.is_namespace]
    for companion in namespaces:
        made[companion.key] = create_companion(companion, opts)
    spaces = list(made.values())
    for companion in companions:
        if not companion.is_namespace:
            extra = pulumi.ResourceOptions(depends_on=spaces) if spaces else None
            merged = pulumi.ResourceOptions.merge(opts, extra) if extra else opts
            made[companion.key] = create_companion(companion, merged)
    return made


class VolcanoQueue(pulumi.ComponentResource):
    """A Volcano Queue created by the stack, ready once Volcano reports it Open.

    Args:
        name: the Pulumi resource name.
        queue: a parsed declaration, or a Queue manifest (``{metadata: {name}, spec}``).
        opts: the usual resource options (provider, parent, protect ...).
    """

    queue_name: pulumi.Output[str]

    def __init__(
        self,
        name: str,
        queue: QueueDecl | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__("raygang:index:VolcanoQueue", name, None, opts)
        decl = (
            queue
            if isinstance(queue, QueueDecl)
            else _or_run_error(lambda: parse_queue(queue, name))
        )
        self.decl = decl
        planned = PlannedResource("queue", decl.manifest())
        self.queue = _custom(
            name, planned, dict(planned.manifest["metadata"]), pulumi.ResourceOptions(parent=self)
        )
        self.queue_name = pulumi.Output.from_input(decl.name)
        self.register_outputs({"queueName": self.queue_name})


def _or_run_error(build: Any) -> Any:
    # A SpecError becomes a RunError: Pulumi prints its message without a Python traceback.
    try:
        return build()
    except SpecError as exc:
        raise pulumi.RunError(str(exc)) from None


@dataclass
class RayJobGangArgs:
    """Inputs of :class:`RayJobGang`.

    Attributes:
        manifest: the RayJob, exactly as in a YAML file (ignored when ``plan`` is given).
        settings: accounting, waits and timeouts; the job's ``raygang.dev/*`` annotations
            override them.
        queue: the :class:`VolcanoQueue` the job's ``volcano.sh/queue-name`` label names,
            when this program creates it; the job then waits for it to be Open. A queue
            whose name is not the label's is an error: the PodGroup goes to the label's
            queue, so the dependency would be on the wrong object.
        companions: resources the RayCluster needs first (the objects of the job's file:
            :func:`create_companion`); its ``depends_on`` includes them.
        plan: a plan made beforehand (``__main__`` plans the whole stack first, so errors
            in every job are reported together).
        source: names the manifest in error messages.
        snapshot: what the cluster reports, for the lifecycle decision and the preflight.
        now: the clock for lifecycle decisions (default: the current time).
        secret: the manifest comes from secret config (``pulumi config set --secret``):
            every input of the job's resources is registered as a secret.
    """

    manifest: Mapping[str, Any] | None = None
    settings: JobSettings = field(default_factory=JobSettings)
    queue: VolcanoQueue | None = None
    companions: Sequence[pulumi.Resource] = ()
    plan: JobPlan | None = None
    source: str = "RayJobGangArgs.manifest"
    snapshot: ClusterSnapshot | None = None
    now: datetime | None = None
    secret: bool = False


def _check_queue(plan: JobPlan, queue: VolcanoQueue | None, source: str) -> None:
    """The queue given must be the one the label names; a declared one must be given."""
    label = f"metadata.labels[{QUEUE_LABEL!r}]"
    if queue is not None and queue.decl.name != plan.queue:
        named = (
            f"names queue {plan.queue!r}"
            if plan.queue is not None
            else "is absent (Volcano's default queue)"
        )
        raise SpecError.one(
            source,
            label,
            f"{named}, but RayJobGangArgs.queue is VolcanoQueue {queue.decl.name!r}: the "
            "PodGroup goes to the label's queue, so it would not wait for this one",
            f"{QUEUE_LABEL}: {queue.decl.name} on the RayJob, or the VolcanoQueue of "
            f"{plan.queue or 'its label'} (or none)",
        )
    if queue is None and plan.queue_declared:
        raise SpecError.one(
            source,
            label,
            f"names queue {plan.queue!r}, which the plan creates, but RayJobGangArgs.queue "
            "is not given: the PodGroup would not wait for it to be Open",
            f"RayJobGangArgs(queue=<the VolcanoQueue {plan.queue}>)",
        )


def _plan_from_args(args: RayJobGangArgs) -> JobPlan:
    if args.plan is not None:
        _check_queue(args.plan, args.queue, args.plan.item.source)
        return args.plan
    if args.manifest is None:
        raise SpecError.one(args.source, "<document>", "no manifest given", "a RayJob manifest")
    item = load_rayjob_document(args.manifest, args.source)
    declared = {args.queue.decl.name: args.queue.decl} if args.queue else {}
    plan = finish_job(
        plan_job(item, args.settings, declared),
        queues=declared,
        snapshot=args.snapshot,
        now=args.now or datetime.now(UTC),
    )
    _check_queue(plan, args.queue, args.source)
    result = plan.preflight
    if result is not None and result.never_admitted:
        raise SpecError.one(
            args.source,
            "spec",
            "the gang can never be admitted as declared: " + "; ".join(result.reasons),
        )
    return plan


class RayJobGang(pulumi.ComponentResource):
    """One RayJob, gang-scheduled by Volcano: record → PodGroup → RayCluster → submitter.

    Outputs: ``pod_group_name``, ``min_member``, ``min_resources``, ``ray_cluster_name``,
    ``submitter_job_name`` (None outside K8sJobMode), ``submission_id``, ``dashboard_url``
    and ``gang_summary``.

    Args:
        name: the Pulumi resource name (``<namespace>/<job>`` in the stack program).
        args: the manifest or plan, settings and queue.
        opts: the usual resource options; children inherit provider and parent.
    """

    def __init__(
        self, name: str, args: RayJobGangArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("raygang:index:RayJobGang", name, None, opts)
        plan = _or_run_error(lambda: _plan_from_args(args))
        self.plan: JobPlan = plan
        created: dict[str, pulumi.Resource] = {}
        if args.queue is not None:
            created[f"Queue/{args.queue.decl.name}"] = args.queue
        record_uid: pulumi.Output[str] | None = None
        ignored = plan.lifecycle.ignore_changes if plan.lifecycle is not None else {}

        for resource in plan.resources:
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
                ignore_changes=list(ignored.get(resource.role, ())) or None,
                delete_before_replace=True if resource.role == "submitter" else None,
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
                    metadata=_secret(metadata, secret),
                    data=_secret(dict(legacy), secret) if legacy else None,
                    opts=opts_i,
                )
                record_uid = record.metadata.apply(lambda m: m.uid)
                made = record
            elif resource.role == "submitter":
                made = k8s.batch.v1.Job(
                    rname,
                    metadata=_secret(metadata, secret),
                    spec=_secret(resource.manifest["spec"], secret),
                    opts=opts_i,
                )
            elif resource.role == "podgroup" and args.queue is not None:
                spec = _queue_after_creation(resource.manifest["spec"], args.queue)
                made = _custom(rname, resource, metadata, opts_i, secret, spec)
            else:
                made = _custom(rname, resource, metadata, opts_i, secret)
            created[resource.ref] = made
        self.resources = created

        # Every output is known at plan time, so it is registered as a plain value and made
        # an Output only when read: an Output per value and job cost about half of this
        # layer's time over bare registration (benchmarks/pulumi_mocks.py).
        submitter = plan.resource("submitter")
        values: dict[str, Any] = {
            "podGroupName": plan.podgroup_name,
            # What the PodGroup holds now: the lifecycle zeroes or shrinks it after the job.
            "minMember": plan.declared_min_member,
            "minResources": plan.declared_min_resources,
            "rayClusterName": plan.name,
            "submitterJobName": submitter.name if submitter else None,
            "submissionId": plan.submission_id,
            "dashboardUrl": plan.dashboard_url,
            "gangSummary": plan.gang.summary(),
        }
        self._values = values
        self._outputs: dict[str, pulumi.Output[Any]] = {}
        self.register_outputs(values)

    def _output(self, key: str) -> pulumi.Output[Any]:
        if key not in self._outputs:
            self._outputs[key] = pulumi.Output.from_input(self._values[key])
        return self._outputs[key]

    @property
    def pod_group_name(self) -> pulumi.Output[str]:
        """The PodGroup's name, ``ray-<job>-pg``."""
        return self._output("podGroupName")

    @property
    def min_member(self) -> pulumi.Output[int]:
        """The PodGroup's ``minMember`` now (the lifecycle zeroes it after the job)."""
        return self._output("minMember")

    @property
    def min_resources(self) -> pulumi.Output[dict[str, str]]:
        """The PodGroup's ``minResources`` now, canonical quantities."""
        return self._output("minResources")

    @property
    def ray_cluster_name(self) -> pulumi.Output[str]:
        """The RayCluster's name (the job's)."""
        return self._output("rayClusterName")

    @property
    def submitter_job_name(self) -> pulumi.Output[str | None]:
        """The submitter Job's name; None outside K8sJobMode."""
        return self._output("submitterJobName")

    @property
    def submission_id(self) -> pulumi.Output[str]:
        """The Ray job submission ID the submitter uses."""
        return self._output("submissionId")

    @property
    def dashboard_url(self) -> pulumi.Output[str]:
        """The head's dashboard URL inside the cluster."""
        return self._output("dashboardUrl")

    @property
    def gang_summary(self) -> pulumi.Output[str]:
        """One line: minMember and minResources, e.g. ``minMember 3, cpu 5500m, memory 10752Mi``."""
        return self._output("gangSummary")
