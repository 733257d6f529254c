"""raygang as a Pulumi package: ``RayJobGang``, ``RayClusterGang`` and ``VolcanoQueue`` for
every language.

A component provider (``provider/__main__.py``, ``pulumi.provider.experimental``'s
``component_provider_host``) infers its schema from the ``args`` annotation of each class's
``__init__`` and hands the constructor a plain dict of the consumer's inputs. The classes of
``raygang.component`` take Python objects (a ``JobPlan``, a ``QueueDecl``, ``datetime``)
that no schema can describe, so the classes here are thin adapters over them, under the
same names and type tokens: they turn schema-friendly inputs into the same planning pass as
the stack program (:func:`raygang.pipeline.plan_program`) and then
run the same component code, so a YAML or TypeScript program creates the objects the
Python program creates for the same job.

Planning happens at plan time (the gang's size and every object's name are decided before
anything exists), so every input must be known when the program is previewed: an input
that is an output of another resource is refused with a message naming it.

Schema rules followed (Pulumi SDK ``pulumi/provider/experimental/analyzer.py``): one
``TypedDict`` per ``args``, no unions, a docstring after each field (the schema's
description), plain types for inputs planning needs (the schema marks them ``plain``),
``pulumi.json#/Any`` for the queue, which is a reference to a resource of this package.
"""

# No `from __future__ import annotations`: the schema analyzer reads the annotations as
# objects (inspect.get_annotations without eval_str).
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NotRequired, TypedDict, TypeVar

import pulumi
from pulumi.provider import ConstructResult
from pulumi.provider import main as provider_main
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.server import ComponentInitError
from pulumi.resource import DependencyResource
from pulumi.runtime.rpc import UNKNOWN, ResourceModule, register_resource_module

from raygang.component.args import RayJobGangArgs as _ComponentArgs
from raygang.component.companions import create_companions
from raygang.component.queue import VolcanoQueue as _VolcanoQueue
from raygang.component.rayclustergang import RayClusterGang as _RayClusterGang
from raygang.component.rayclustergang import RayClusterGangArgs as _ClusterArgs
from raygang.component.rayjobgang import RayJobGang as _RayJobGang
from raygang.kube.errors import SpecError
from raygang.loader import load_documents
from raygang.pipeline import plan_program
from raygang.plan import PlannedCluster, PlannedJob, StackPlan
from raygang.volcano.queue import parse_queue

PACKAGE = "raygang"
_T = TypeVar("_T")

# The settings a RayJobGang takes, by the ``raygang:*`` key that sets them for a stack.
_SETTING_KEYS = {
    "accounting": "accounting",
    "preflight": "preflight",
    "node_shapes": "nodeShapes",
    "cluster_snapshot": "clusterSnapshot",
    "live_facts": "liveFacts",
    "wait_for_completion": "waitForCompletion",
    "completion_timeout_seconds": "completionTimeoutSeconds",
    "cluster_ready_timeout_seconds": "clusterReadyTimeoutSeconds",
    "fail_on_job_failure": "failOnJobFailure",
    "cluster_domain": "clusterDomain",
    "now": "now",
}


class VolcanoQueueInputs(TypedDict):
    """The inputs of a VolcanoQueue."""

    name: str
    (
        "The Queue's metadata.name, the name RayJobs give in their volcano.sh/queue-name label. "
        "Must be known at preview."
    )
    spec: NotRequired[dict[str, Any]]
    (
        "The Volcano Queue spec (weight, capability, deserved, guarantee, reclaimable, parent), "
        "checked as Volcano's CRD and webhook would. Must be known at preview."
    )


class RayJobGangInputs(TypedDict):
    """The inputs of a RayJobGang: a RayJob manifest and the stack settings that apply to it."""

    manifest: dict[str, Any]
    (
        "The RayJob (apiVersion ray.io/v1, kind RayJob) exactly as in a YAML file; its "
        "raygang.dev/* annotations override the settings below. Must be known at preview."
    )
    queue: NotRequired[Any]
    (
        "The VolcanoQueue resource of this program that the job's volcano.sh/queue-name label "
        "names (the job then waits for it to be Open), or the name of a queue the cluster already "
        "has. Omit it when the label names no queue this program creates."
    )
    companions: NotRequired[list[dict[str, Any]]]
    (
        "Other Kubernetes objects the job needs (ConfigMaps its head mounts, its ServiceAccount "
        "...), created as written before the RayCluster, as the objects of a raygang:manifests "
        "file are. Must be known at preview."
    )
    accounting: NotRequired[str]
    (
        "How the gang is counted: effective (KEP-753 pod requests, the default) or kuberay "
        "(KubeRay's Volcano adapter), as the raygang:accounting setting."
    )
    preflight: NotRequired[str]
    (
        "What the offline Volcano preflight does with a gang it finds stuck: error (the default: "
        "the preview fails when it can never be admitted), warn or off."
    )
    node_shapes: NotRequired[list[dict[str, Any]]]
    (
        "The cluster's node shapes ({name, allocatable, count}) for the preflight's per-pod fit "
        "check when no snapshot is given, as the raygang:nodeShapes setting."
    )
    cluster_snapshot: NotRequired[str]
    (
        "An absolute path to a cluster snapshot file (kubectl get ... -o yaml) for the lifecycle "
        "decision and the preflight. The provider runs in its own directory, so a relative path "
        "is refused; in YAML write ${pulumi.cwd}/snapshot.yaml."
    )
    live_facts: NotRequired[bool]
    (
        "Read the job's facts from the cluster itself (the kubernetes Python client, and the "
        "stack's kubernetes:kubeconfig and kubernetes:context, else the current kubeconfig) "
        "when no snapshot is given, as the raygang:liveFacts setting."
    )
    wait_for_completion: NotRequired[bool]
    """pulumi up waits until the Ray job finishes (the default: false)."""
    completion_timeout_seconds: NotRequired[int]
    """How long the submitter waits for the job to finish (default 3600)."""
    cluster_ready_timeout_seconds: NotRequired[int]
    """How long the submitter waits for the RayCluster to be ready (default 900)."""
    fail_on_job_failure: NotRequired[bool]
    """The submitter fails when the Ray job fails (default: false)."""
    cluster_domain: NotRequired[str]
    """The cluster's DNS domain for the dashboard URL (default cluster.local)."""
    now: NotRequired[str]
    """The clock of the lifecycle decision, RFC 3339 (default: the current time)."""


def whole_numbers(value: object) -> Any:
    """``value`` with every integral float as an int.

    The engine sends a component's inputs as a protobuf Struct, whose numbers are all
    doubles (google/protobuf/struct.proto), so ``weight: 1`` in a YAML program arrives as
    1.0, which the planner, like Volcano's CRD for an integer field, would refuse. Whole
    numbers are taken back as integers; 2.5 stays a float and is refused where an integer
    is needed, as the CLI refuses it.
    """
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {k: whole_numbers(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [whole_numbers(v) for v in value]
    return value


def must_be_known(value: object, what: str, component: str) -> Any:
    """``value`` unchanged when it is a plain, known value; a clear error otherwise.

    The provider receives an input as an Output when it came from another resource (it has
    dependencies) or is secret (pulumi/provider/server.py, ``_select_value``), and an
    unknown value inside it during preview. Planning needs the values themselves, now.
    """
    if isinstance(value, pulumi.Output) or _has_unknowns(value):
        raise pulumi.RunError(
            f"raygang: {component} input {what} must be known at preview: raygang plans the "
            "gang (the PodGroup's minMember and minResources, every object's name) before "
            "anything is created, so it cannot wait for an output of another resource or "
            "read a secret. Write the value in the program (or in stack config) instead."
        )
    return whole_numbers(value)


def _has_unknowns(value: object) -> bool:
    if value is UNKNOWN or isinstance(value, pulumi.Output):
        return True
    if isinstance(value, Mapping):
        return any(_has_unknowns(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_unknowns(v) for v in value)
    return False


def _or_run_error(step: Callable[[], _T]) -> _T:
    # The same words as the stack program (__main__.py) for the same problems.
    try:
        return step()
    except SpecError as exc:
        raise pulumi.RunError(f"raygang: invalid input:\n{exc}") from None
    except RecursionError:
        raise
    except RuntimeError as exc:  # live facts without the kubernetes client or credentials
        raise pulumi.RunError(f"raygang: cannot read the cluster's state: {exc}") from None


class RayClusterGangInputs(TypedDict):
    """The inputs of a RayClusterGang: a RayCluster manifest and the settings that apply to it."""

    manifest: dict[str, Any]
    (
        "The RayCluster (apiVersion ray.io/v1, kind RayCluster) exactly as in a YAML file, one "
        "no RayJob makes; its raygang.dev/* annotations override the settings below. Must be "
        "known at preview."
    )
    queue: NotRequired[Any]
    (
        "The VolcanoQueue resource of this program that the cluster's volcano.sh/queue-name "
        "label names (the PodGroup then waits for it to be Open), or the name of a queue the "
        "cluster already has."
    )
    companions: NotRequired[list[dict[str, Any]]]
    (
        "Other Kubernetes objects the cluster needs (ConfigMaps its head mounts, its "
        "ServiceAccount ...), created as written before the RayCluster, as the objects of a "
        "raygang:manifests file are. Must be known at preview."
    )
    accounting: NotRequired[str]
    (
        "effective (the default) or kuberay: which gang the plan shows beside KubeRay's; the "
        "PodGroup carries KubeRay's numbers either way, which the KubeRay operator re-syncs."
    )
    preflight: NotRequired[str]
    """What the offline Volcano preflight does with a gang it finds stuck: error, warn or off."""
    node_shapes: NotRequired[list[dict[str, Any]]]
    """The cluster's node shapes ({name, allocatable, count}) for the preflight's fit check."""
    cluster_snapshot: NotRequired[str]
    """An absolute path to a cluster snapshot file for the preflight."""
    cluster_ready_timeout_seconds: NotRequired[int]
    """How long pulumi up waits for the RayCluster to be ready (default 900)."""
    cluster_domain: NotRequired[str]
    """The cluster's DNS domain for the dashboard URL (default cluster.local)."""


class VolcanoQueue(_VolcanoQueue):
    """A Volcano Queue this program creates, ready once Volcano reports it Open."""

    # (The docstring is the schema's description, one line.) RayJobGangs whose label names
    # the queue take it as their ``queue`` input.

    queue_name: pulumi.Output[str]
    """The Queue's name."""

    def __init__(
        self, name: str, args: VolcanoQueueInputs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        component = f"VolcanoQueue {name}"
        queue_name = must_be_known(args.get("name"), "name", component)
        spec = must_be_known(args.get("spec", {}), "spec", component)
        decl = _or_run_error(
            lambda: parse_queue({"name": queue_name, "spec": spec}, f"{component} input")
        )
        super().__init__(name, decl, opts)
        _QUEUES[name] = self


class RayJobGang(_RayJobGang):
    """A KubeRay RayJob gang-scheduled by Volcano, planned and checked before any object exists."""

    # (The docstring is the schema's description, one line.) The objects: the job record
    # ConfigMap, the PodGroup, the RayCluster and the submitter Job, as the Python
    # component creates them.

    pod_group_name: pulumi.Output[str]
    """The Volcano PodGroup's name, ray-<job>-pg."""
    min_member: pulumi.Output[int]
    (
        "The PodGroup's minMember now: the head and every worker (the lifecycle zeroes it once "
        "the job is done)."
    )
    min_resources: pulumi.Output[dict[str, str]]
    """The PodGroup's minResources now, canonical Kubernetes quantities."""
    ray_cluster_name: pulumi.Output[str]
    """The RayCluster's name (the RayJob's)."""
    submitter_job_name: pulumi.Output[str | None]
    """The submitter Job's name; absent outside K8sJobMode."""
    submission_id: pulumi.Output[str]
    """The Ray job submission ID the submitter uses."""
    dashboard_url: pulumi.Output[str]
    """The head's dashboard URL inside the cluster."""
    gang_summary: pulumi.Output[str]
    """One line: minMember and minResources, e.g. minMember 3, cpu 5500m, memory 10752Mi."""

    def __init__(
        self, name: str, args: RayJobGangInputs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        component = f"RayJobGang {name}"
        companions = must_be_known(args.get("companions", []), "companions", component)
        stack, given, queue = _plan_inputs(component, args, companions)
        if len(stack.jobs) != 1:
            raise pulumi.RunError(
                f"raygang: {component} input manifest must be one RayJob (apiVersion ray.io/v1, "
                f"kind RayJob); it declares {len(stack.jobs)}"
            )
        job = stack.jobs[0]
        _check_queue_input(component, given, job.plan.queue)
        super().__init__(
            name,
            _ComponentArgs(job=job, queue=queue, companions=_companions_beside(stack, job, opts)),
            opts,
        )


class RayClusterGang(_RayClusterGang):
    """A KubeRay RayCluster of its own gang-scheduled by Volcano, planned and checked first."""

    # (The docstring is the schema's description, one line.) The objects: the PodGroup
    # ray-<cluster>-pg, then the RayCluster, as the Python component creates them.

    pod_group_name: pulumi.Output[str]
    """The Volcano PodGroup's name, ray-<cluster>-pg."""
    min_member: pulumi.Output[int]
    """The PodGroup's minMember now: the head and every worker (0 while suspended)."""
    min_resources: pulumi.Output[dict[str, str]]
    """The PodGroup's minResources now, canonical Kubernetes quantities."""
    ray_cluster_name: pulumi.Output[str]
    """The RayCluster's name."""
    dashboard_url: pulumi.Output[str]
    """The head's dashboard URL inside the cluster."""
    gang_summary: pulumi.Output[str]
    """One line: minMember and minResources, e.g. minMember 4, cpu 3, memory 6Gi."""

    def __init__(
        self, name: str, args: RayClusterGangInputs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        component = f"RayClusterGang {name}"
        companions = must_be_known(args.get("companions", []), "companions", component)
        stack, given, queue = _plan_inputs(component, args, companions)
        if stack.jobs or len(stack.clusters) != 1:
            raise pulumi.RunError(
                f"raygang: {component} input manifest must be one RayCluster (apiVersion "
                f"ray.io/v1, kind RayCluster); it declares {len(stack.clusters)} RayClusters "
                f"and {len(stack.jobs)} RayJobs"
            )
        cluster = stack.clusters[0]
        _check_queue_input(component, given, cluster.plan.queue)
        super().__init__(
            name,
            _ClusterArgs(
                cluster=cluster, queue=queue, companions=_companions_beside(stack, cluster, opts)
            ),
            opts,
        )


def _plan_inputs(
    component: str, args: Mapping[str, Any], companions: Sequence[object]
) -> tuple[StackPlan, object, _VolcanoQueue | None]:
    """Plan a component's manifest (and companions, and queue) as the stack program plans
    its files: the same pass, the same gate. Returns the plan, the queue input as given
    and the VolcanoQueue it names (None for a name or no queue)."""
    source = f"{component} input"
    manifest = must_be_known(args.get("manifest"), "manifest", component)
    values = {
        key: must_be_known(args[field], field_name(field), component)
        for field, key in _SETTING_KEYS.items()
        if args.get(field) is not None
    }
    snapshot_path = values.get("clusterSnapshot")
    if isinstance(snapshot_path, str) and not Path(snapshot_path).is_absolute():
        raise pulumi.RunError(
            f"raygang: {component} input clusterSnapshot {snapshot_path!r} must be an "
            "absolute path: the provider runs in its own directory, not the program's "
            "(in YAML, write ${pulumi.cwd}/" + snapshot_path + ")"
        )
    given = must_be_known(args.get("queue"), "queue", component)
    queue = _queue_of(given, component)
    docs = [(f"{source} manifest", manifest)]
    docs += [(f"{source} manifest (document {i + 2})", c) for i, c in enumerate(companions)]
    if queue is not None:
        docs.append((f"{source} queue", queue.decl.manifest()))
    planned = _or_run_error(
        lambda: plan_program(
            values.get,
            f"{component} inputs",
            lambda _settings, _cluster_scoped: load_documents(docs),
            base=Path("/"),
            # Live facts come from the cluster the default kubernetes provider deploys to:
            # the stack's kubernetes:* config reaches the provider with each construct.
            kube=pulumi.Config("kubernetes").get,
        )
    )
    if planned.gate.errors:
        raise pulumi.RunError(
            "raygang: "
            + "\nraygang: ".join(planned.gate.errors)
            + f"\n(set the preflight input of {component} to warn to apply anyway)"
        )
    for warning in planned.gate.warnings:
        pulumi.log.warn(f"raygang: {warning}")
    return planned.plan, given, queue


def _check_queue_input(component: str, given: object, label_queue: str | None) -> None:
    """A queue input given by name must be the one the manifest's label names."""
    if isinstance(given, str) and given != label_queue:
        raise pulumi.RunError(
            f"raygang: {component} input queue is {given!r}, but the manifest's "
            f"volcano.sh/queue-name label names {label_queue!r}: the PodGroup goes to the "
            "label's queue"
        )


def _companions_beside(
    stack: StackPlan, item: PlannedJob | PlannedCluster, opts: pulumi.ResourceOptions | None
) -> list[pulumi.Resource]:
    """The companions of ``item``'s manifest as the stack program creates them: beside the
    gang rather than in it, so their names and objects are the same; they follow the gang's
    providers."""
    made = create_companions(stack.companions, _beside(opts))
    return [made[c.key] for c in stack.companions_of(item)]


def _beside(opts: pulumi.ResourceOptions | None) -> pulumi.ResourceOptions | None:
    """Options for a resource beside the component: its parent and providers."""
    if opts is None:
        return None
    providers = opts.providers
    return pulumi.ResourceOptions(
        parent=opts.parent,
        provider=opts.provider,
        providers=dict(providers) if isinstance(providers, Mapping) else list(providers or ()),
    )


#: The components the provider serves, in its schema.
COMPONENTS = (RayJobGang, RayClusterGang, VolcanoQueue)


def field_name(field: str) -> str:
    """A Python field's name in the schema (camelCase), as the analyzer names it."""
    head, *rest = field.split("_")
    return head + "".join(part.title() for part in rest)


# The VolcanoQueues this provider process constructed, by Pulumi resource name. The engine
# runs one provider process per package and deployment, and sends a VolcanoQueue given as a
# RayJobGang's queue as a resource reference; the Python SDK turns a reference into an object
# through the resource module registered for its package (pulumi/runtime/rpc.py,
# deserialize_resource). A reference resolves to the very VolcanoQueue, whose declaration
# the plan needs and whose Queue the PodGroup waits for.
_QUEUES: dict[str, VolcanoQueue] = {}


class _QueueReferences(ResourceModule):
    def version(self) -> None:
        return None

    def construct(self, name: str, typ: str, urn: str) -> pulumi.Resource:
        found = _QUEUES.get(name) if typ == f"{PACKAGE}:index:VolcanoQueue" else None
        if found is not None:
            return found
        return DependencyResource(urn)


def register_references() -> None:
    """Let a VolcanoQueue reference in a RayJobGang's inputs resolve to the VolcanoQueue."""
    register_resource_module(PACKAGE, "index", _QueueReferences())


class RaygangProvider(ComponentProvider):
    """The component provider of :data:`COMPONENTS`, with raygang's errors
    reported in their own words.

    ``ComponentProvider.construct`` wraps whatever a constructor raises in a
    ``ComponentInitError``, which the provider server reports with the Python traceback
    appended; a ``RunError`` it passes on as it is (pulumi/provider/server.py,
    ``Construct``). A ``RunError`` of ours already says what is wrong with which input, so it
    is raised again unwrapped: the engine shows its message against the resource. (An
    ``InputPropertiesError`` would carry the same message, but the Python SDK 3.272.0 fails
    building its status: "'Status' object has no attribute 'trailing_metadata'", seen on the
    real engine.)
    """

    def construct(
        self,
        name: str,
        resource_type: str,
        inputs: pulumi.Inputs,
        options: pulumi.ResourceOptions | None = None,
    ) -> ConstructResult:
        try:
            return super().construct(name, resource_type, inputs, options)
        except ComponentInitError as exc:
            if isinstance(exc.inner, pulumi.RunError):
                raise exc.inner from None
            raise


def serve(args: list[str], version: str) -> None:
    """Serve the package to the engine (``provider/__main__.py``), as
    ``component_provider_host`` does, with :class:`RaygangProvider`."""
    register_references()
    provider_main(RaygangProvider(list(COMPONENTS), PACKAGE, None, version), args)


def _queue_of(value: object, component: str) -> _VolcanoQueue | None:
    """The ``queue`` input: a VolcanoQueue of this program, or a name of an existing queue."""
    if value is None or isinstance(value, str):
        # A queue the cluster already has: the label alone names it, nothing to wait for.
        return None
    if isinstance(value, _VolcanoQueue):
        return value
    raise pulumi.RunError(
        f"raygang: {component} input queue must be a VolcanoQueue resource of this program "
        "(or the name of a queue the cluster already has); got "
        + ("an output of another resource" if isinstance(value, pulumi.Output) else repr(value))
    )
