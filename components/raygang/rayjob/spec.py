"""Typed, frozen views of the RayJob fields raygang reads.

The models cover only what planning needs. The user's manifest itself is kept verbatim
beside the model (:class:`RayJobInput`), and every rendered object is built from that raw
copy, so fields we do not model (volumes, tolerations, affinity, fields of newer KubeRay
versions) pass through untouched by construction.

Scalars are validated *strictly*: the raw copy is what reaches the API server, so a value
pydantic would coerce (``replicas: "2"``, ``shutdownAfterJobFinishes: "yes"``,
``rayVersion: 2.52``) must be refused here, or the CRD would refuse the RayCluster later,
at apply time.

Defaults are the CRD defaults the API server would apply (``replicas: 0``,
``numOfHosts: 1``, ``submissionMode: K8sJobMode`` ...), because KubeRay computes the gang on
the defaulted object.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from pydantic import (
    Field,
    ModelWrapValidatorHandler,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic_core import PydanticCustomError

from raygang.kube.core import (
    INT32_MAX,
    QUANTITY_EXAMPLES,
    FrozenModel,
    ObjectMeta,
    PodTemplate,
    ResourceRequirements,
    StringMap,
    field,
    frozen_model,
)
from raygang.kube.errors import (
    MapKey,
    Problem,
    SpecError,
    describe_document,
    describe_hidden,
    describe_value,
    field_path,
)
from raygang.kube.quantity import Quantity
from raygang.kube.secretkeys import secret_field
from raygang.kube.tree import copy_tree
from raygang.rayjob.deletion import DeletionStrategy, Finding, read_deletion_strategy
from raygang.rayjob.validate import SubmitterRules, manifest_problems

__all__ = [
    "INT32_MAX",
    "AutoscalerOptions",
    "HeadGroupSpec",
    "ObjectMeta",
    "PodTemplate",
    "RayClusterSpec",
    "RayJob",
    "RayJobInput",
    "RayJobSpec",
    "ResourceRequirements",
    "SubmitterConfig",
    "WorkerGroupSpec",
    "load_rayjob",
    "parse_rayjob",
    "parsed_quantities",
    "problems_from_validation_error",
]

#: The pydantic error type of KubeRay's rules: its context holds every finding of one rule
#: set, (path, message, accepted), which :func:`problems_from_validation_error` spreads out.
KUBERAY_RULES = "kuberay_rules"


@frozen_model
class HeadGroupSpec(FrozenModel):
    """``rayClusterSpec.headGroupSpec``."""

    template: PodTemplate
    # The CRD declares both maps as string to string; `num-cpus: 1` is refused.
    ray_start_params: StringMap = field(default_factory=dict)
    resources: StringMap = field(default_factory=dict)
    labels: StringMap = field(default_factory=dict)


@frozen_model
class WorkerGroupSpec(FrozenModel):
    """One ``rayClusterSpec.workerGroupSpecs[]`` entry, with the CRD defaults."""

    group_name: StrictStr
    replicas: StrictInt | None = 0
    min_replicas: StrictInt | None = 0
    max_replicas: StrictInt | None = INT32_MAX
    num_of_hosts: StrictInt = 1
    suspend: StrictBool | None = None
    idle_timeout_seconds: StrictInt | None = None
    template: PodTemplate
    ray_start_params: StringMap = field(default_factory=dict)
    resources: StringMap = field(default_factory=dict)
    labels: StringMap = field(default_factory=dict)


@frozen_model
class AutoscalerOptions(FrozenModel):
    """``rayClusterSpec.autoscalerOptions`` (its resources matter to the gang)."""

    resources: ResourceRequirements | None = None
    version: StrictStr | None = None


@frozen_model
class RayClusterSpec(FrozenModel):
    """``spec.rayClusterSpec``."""

    head_group_spec: HeadGroupSpec
    worker_group_specs: list[WorkerGroupSpec] = field(default_factory=list)
    enable_in_tree_autoscaling: StrictBool | None = None
    autoscaler_options: AutoscalerOptions | None = None
    ray_version: StrictStr | None = None
    gcs_fault_tolerance_options: dict[StrictStr, Any] | None = None
    auth_options: dict[StrictStr, Any] | None = None
    suspend: StrictBool | None = None

    @property
    def autoscaling(self) -> bool:
        """KubeRay's IsAutoscalingEnabled: only an explicit ``enableInTreeAutoscaling: true``."""
        return self.enable_in_tree_autoscaling is True


@frozen_model
class SubmitterConfig(FrozenModel):
    """``spec.submitterConfig``."""

    backoff_limit: StrictInt | None = None


@frozen_model
class RayJobSpec(FrozenModel):
    """``spec`` of a RayJob: every field planning, the submitter or the lifecycle reads."""

    entrypoint: StrictStr = ""
    runtime_env_yaml: StrictStr | None = field(default=None, alias="runtimeEnvYAML")
    metadata: StringMap = field(default_factory=dict)
    entrypoint_num_cpus: StrictFloat | None = None
    entrypoint_num_gpus: StrictFloat | None = None
    entrypoint_resources: StrictStr | None = None
    submission_mode: StrictStr = "K8sJobMode"
    submitter_pod_template: PodTemplate | None = None
    submitter_config: SubmitterConfig | None = None
    shutdown_after_job_finishes: StrictBool = False
    ttl_seconds_after_finished: StrictInt = 0
    suspend: StrictBool = False
    cluster_selector: StringMap = field(default_factory=dict)
    job_id: StrictStr | None = None
    backoff_limit: StrictInt = 0
    active_deadline_seconds: StrictInt | None = None
    pre_running_deadline_seconds: StrictInt | None = None
    deletion_strategy: dict[StrictStr, Any] | None = None
    managed_by: StrictStr | None = None
    ray_cluster_spec: RayClusterSpec | None = None


@frozen_model
class RayJob(FrozenModel):
    """A ``ray.io/v1`` RayJob."""

    api_version: Literal["ray.io/v1"]
    kind: Literal["RayJob"]
    metadata: ObjectMeta
    spec: RayJobSpec
    # Not read from the manifest (init=False): the checked spec.deletionStrategy, set by
    # the validator below while the instance is being built, before anyone can see it.
    deletion: DeletionStrategy | None = Field(default=None, init=False)

    @model_validator(mode="after")
    def _deletion_strategy(self) -> RayJob:
        """KubeRay's deletion-strategy rules (:mod:`raygang.rayjob.deletion`).

        An ``after`` validator of the whole job: it runs only once every field is valid,
        so its problems follow those of the manifest's other rules, as KubeRay reports
        them after the CRD's schema.
        """
        raw = self.spec.deletion_strategy
        if raw is None:
            return self
        cluster = self.spec.ray_cluster_spec
        strategy, findings = read_deletion_strategy(
            raw,
            autoscaling=cluster is not None and cluster.autoscaling,
            shutdown=self.spec.shutdown_after_job_finishes,
        )
        if findings:
            raise PydanticCustomError(
                KUBERAY_RULES, "{count} problems", {"count": len(findings), "found": findings}
            )
        object.__setattr__(self, "deletion", strategy)
        return self

    @model_validator(mode="wrap")
    @classmethod
    def _kuberay_validation(
        cls, data: object, handler: ModelWrapValidatorHandler[RayJob], info: ValidationInfo
    ) -> RayJob:
        """KubeRay's validation of the whole document, every problem in one error.

        With the submitter's rules in the context (:func:`load_rayjob`), the semantic rules
        (:func:`raygang.rayjob.validate.manifest_problems`) run beside the structural
        validation, even when it fails, since they read the manifest tolerantly. The
        structure's problems come first, in pydantic's order; then the rules', each dropped
        when it is at or below a structural problem (it would say the same again); the
        deletion strategy's last (its validator runs only on a valid structure). Without
        the context (:func:`parse_rayjob`): the structure and the deletion strategy only.
        """
        context = info.context or {}
        rules = context.get("rules")
        if rules is None or not isinstance(data, Mapping):
            return handler(data)
        job: RayJob | None = None
        structural: list[Finding] = []
        deletion: list[Finding] = []
        try:
            job = handler(data)
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                if err["type"] == KUBERAY_RULES:
                    deletion += err["ctx"]["found"]
                else:
                    structural.append(_error_finding(err))
        parsed = parsed_quantities(job) if job is not None else None
        semantic = [
            (p.path, p.message, p.accepted)
            for p in manifest_problems(data, context["source"], rules, parsed)
        ]
        paths = [path for path, _, _ in structural]
        found = structural + [f for f in semantic + deletion if not _under(f[0], paths)]
        if found or job is None:
            raise PydanticCustomError(
                KUBERAY_RULES, "{count} problems", {"count": len(found), "found": found}
            )
        return job

    @property
    def name(self) -> str:
        """The RayJob's name."""
        return self.metadata.name

    @property
    def namespace(self) -> str:
        """The RayJob's namespace (``default`` when the manifest has none)."""
        return self.metadata.namespace


def _under(path: str, parents: Sequence[str]) -> bool:
    return any(path == p or path.startswith((f"{p}.", f"{p}[")) for p in parents)


def parsed_quantities(job: RayJob) -> dict[str, Quantity]:
    """The containers' quantities of a structurally valid job, as its typed model parsed
    them, by the field paths :mod:`raygang.rayjob.validate.resources` names them with."""
    templates: list[tuple[str, PodTemplate]] = []
    cluster = job.spec.ray_cluster_spec
    if cluster is not None:
        templates.append(
            ("spec.rayClusterSpec.headGroupSpec.template", cluster.head_group_spec.template)
        )
        for index, group in enumerate(cluster.worker_group_specs):
            templates.append(
                (f"spec.rayClusterSpec.workerGroupSpecs[{index}].template", group.template)
            )
    if job.spec.submitter_pod_template is not None:
        templates.append(("spec.submitterPodTemplate", job.spec.submitter_pod_template))
    found: dict[str, Quantity] = {}
    for path, template in templates:
        pod = template.spec
        for key, containers in (
            ("initContainers", pod.init_containers),
            ("containers", pod.containers),
        ):
            for index, container in enumerate(containers):
                where = f"{path}.spec.{key}[{index}].resources"
                for part, values in (
                    ("requests", container.resources.requests),
                    ("limits", container.resources.limits),
                ):
                    for name, quantity in values.items():
                        found[f"{where}.{part}[{name!r}]"] = quantity
    return found


@dataclass(frozen=True)
class RayJobInput:
    """A RayJob as the user wrote it, plus its typed view.

    Attributes:
        source: where it came from (a file path, or ``stack config raygang:jobs[0]``).
        raw: a private deep copy of the manifest; renderers copy from it again.
        job: the validated model.
    """

    source: str
    raw: Mapping[str, Any]
    job: RayJob

    @property
    def name(self) -> str:
        """The RayJob's name."""
        return self.job.name

    @property
    def namespace(self) -> str:
        """The RayJob's namespace."""
        return self.job.namespace

    def raw_spec(self) -> dict[str, Any]:
        """A fresh deep copy of the manifest's ``spec``, safe to modify."""
        spec = self.raw.get("spec")
        return copy_tree(dict(spec)) if isinstance(spec, Mapping) else {}

    def spec_view(self) -> Mapping[str, Any]:
        """The manifest's ``spec`` as written, not copied: for reading only.

        Copying a whole spec costs about as much as planning the rest of the job, so
        readers take this and writers copy just the part they change.
        """
        spec = self.raw.get("spec")
        return MappingProxyType(spec if isinstance(spec, Mapping) else {})


# --- turning pydantic's errors into Problems -------------------------------------------
# Fields whose value is a user map: the next path element is a key the user chose (a
# resource name, a label), rendered as ['key'].
_MAP_FIELDS = frozenset(
    {
        "requests",
        "limits",
        "overhead",
        "labels",
        "annotations",
        "rayStartParams",
        "clusterSelector",
        "nodeSelector",
        "capability",
        "deserved",
    }
)

_WHOLE = "a whole number without quotes, e.g. 2"

_ACCEPTED_BY_TYPE = {
    "int_type": _WHOLE,
    "int_parsing": _WHOLE,
    "int_from_float": _WHOLE,
    "bool_type": "true or false, without quotes",
    "bool_parsing": "true or false, without quotes",
    "string_type": 'a string; quote it in YAML, e.g. "2.52.0" or "0"',
    "float_type": "a number without quotes, e.g. 1 or 0.5",
    "float_parsing": "a number without quotes, e.g. 1 or 0.5",
    "finite_number": "a finite number, e.g. 1 or 0.5",
    "list_type": "a list (YAML '- item' entries)",
    "dict_type": "a map (YAML 'key: value' entries)",
    "model_type": "a map (YAML 'key: value' entries)",
    "model_attributes_type": "a map (YAML 'key: value' entries)",
    "dataclass_type": "a map (YAML 'key: value' entries)",
}

_WHAT_BY_TYPE = {
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "bool_type": "a boolean",
    "bool_parsing": "a boolean",
    "string_type": "a string",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "list_type": "a list",
    "dict_type": "a map",
    "model_type": "a map",
    "model_attributes_type": "a map",
    "dataclass_type": "a map",
}

# What a missing required field should hold, by field name.
_ACCEPTED_WHEN_MISSING = {
    "apiVersion": "ray.io/v1",
    "kind": "RayJob",
    "metadata": "a map with at least a name",
    "spec": "a RayJob spec with an entrypoint and a rayClusterSpec",
    "headGroupSpec": "a head group: {rayStartParams: {}, template: {spec: {containers: [...]}}}",
    "template": "a pod template: {spec: {containers: [...]}}",
    "spec.template": "a pod spec with a containers list",
    "containers": "a list of at least one container, each with a name and an image",
    "name": "a name such as ray-head",
    "groupName": "a worker group name such as workers",
    "containerPort": "a port number such as 8265",
    "operator": "In, NotIn, Exists, DoesNotExist, Gt or Lt",
    "key": "a label key such as topology.kubernetes.io/zone",
    "nodeSelectorTerms": "a list of node selector terms",
    "weight": "a whole number from 1 to 100",
    "preference": "a node selector term",
}


def _with_map_keys(loc: Sequence[str | int]) -> list[str | int]:
    """Mark the entries of user maps, so ``requests.cpu`` prints as ``requests['cpu']``."""
    out: list[str | int] = []
    for index, part in enumerate(loc):
        parent = loc[index - 1] if index else None
        if isinstance(part, str) and isinstance(parent, str):
            grand = loc[index - 2] if index >= 2 else None
            is_map = parent in _MAP_FIELDS
            # RayJobSpec.metadata is a string map; a group's `resources` is one too.
            is_map |= parent == "metadata" and grand == "spec" and index == 2
            is_map |= parent == "resources" and (
                grand == "headGroupSpec"
                or (isinstance(grand, int) and index >= 3 and loc[index - 3] == "workerGroupSpecs")
            )
            if is_map:
                out.append(MapKey(part))
                continue
        out.append(part)
    return out


def _error_finding(err: Mapping[str, Any]) -> Finding:
    """One pydantic error as (field path, message, what is accepted)."""
    raw_loc = [p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
    key_error = bool(raw_loc) and raw_loc[-1] == "[key]"
    if key_error:
        raw_loc = raw_loc[:-1]
    loc = _with_map_keys(raw_loc)
    path = field_path(loc)
    etype = str(err["type"])
    value = err.get("input")
    ctx = err.get("ctx") or {}
    last = raw_loc[-1] if raw_loc else ""
    # An env value, a runtime env, a password ...: say what it is, never what it says.
    shown = (describe_hidden if secret_field(raw_loc) else describe_value)(value)
    if key_error:
        return (
            path,
            f"YAML reads this key as {describe_value(value)}, not a string",
            "string keys; quote keys such as 1 or true in YAML",
        )
    if etype == "missing":
        accepted = _ACCEPTED_WHEN_MISSING.get(str(last), f"a value for {last}")
        if last == "spec" and len(raw_loc) > 1:
            accepted = _ACCEPTED_WHEN_MISSING["spec.template"]
        return (path, "is required but missing", accepted)
    if etype == "value_error":
        return (path, str(ctx.get("error", err["msg"])), QUANTITY_EXAMPLES)
    if etype == "literal_error":
        return (path, f"{shown} is not accepted", str(ctx.get("expected", "")))
    if etype == "too_short" and last == "containers":
        return (path, "has no containers", _ACCEPTED_WHEN_MISSING["containers"])
    if etype in _WHAT_BY_TYPE:
        message = f"{shown} is not {_WHAT_BY_TYPE[etype]}"
        if etype in ("int_type", "int_from_float") and isinstance(value, float):
            message += " (YAML reads it as a number with a fraction)"
        if etype == "string_type" and isinstance(value, bool):
            message += " (YAML reads unquoted yes/no/true/false/on/off as booleans)"
        return (path, message, _ACCEPTED_BY_TYPE[etype])
    if etype == "extra_forbidden":
        return (path, "is not a known field", "remove it, or fix its spelling")
    bounds = {
        "greater_than": "more than {gt}",
        "greater_than_equal": "{ge} or more",
        "less_than": "less than {lt}",
        "less_than_equal": "{le} or less",
    }
    if etype in bounds:
        accepted = bounds[etype].format(**{k: ctx[k] for k in ("gt", "ge", "lt", "le") if k in ctx})
        return (path, f"{shown} is out of range", accepted)
    msg = str(err["msg"])
    return (
        path,
        f"{msg[:1].lower()}{msg[1:]}; got {shown}",
        "a value of the type this field declares",
    )


def problems_from_validation_error(exc: ValidationError, source: str) -> list[Problem]:
    """Turn pydantic's errors into :class:`Problem` rows with Kubernetes field paths.

    Args:
        exc: the error raised by ``model_validate``.
        source: where the document came from.

    Returns:
        One problem per pydantic error, each saying what was found and what is accepted.
    """
    return [Problem(source, *found) for found in _findings(exc)]


def _findings(exc: ValidationError) -> list[Finding]:
    """pydantic's errors as findings, each of KubeRay's rule sets spread out in its place."""
    out: list[Finding] = []
    for err in exc.errors(include_url=False):
        if err["type"] == KUBERAY_RULES:
            out += err["ctx"]["found"]
        else:
            out.append(_error_finding(err))
    return out


def load_rayjob(raw: object, source: str, rules: SubmitterRules | None = None) -> RayJobInput:
    """Validate one RayJob document: every problem of it together, or the typed job.

    Args:
        raw: the manifest as loaded from YAML or stack config (anything but a mapping is
            reported as a problem).
        source: where it came from, for messages.
        rules: the submitter's rules (``raygang.kuberay.submitter.SUBMITTER_RULES``): with
            them, every rule of KubeRay's validation runs (:meth:`RayJob._kuberay_validation`);
            without them, the structure and the deletion strategy only.

    Returns:
        The typed job with a private deep copy of the manifest.

    Raises:
        SpecError: every problem of the document.
    """
    if not isinstance(raw, Mapping):
        raise SpecError.one(
            source,
            "<document>",
            f"{describe_document(raw)} is not a Kubernetes object",
            "a RayJob object (apiVersion: ray.io/v1, kind: RayJob, metadata, spec)",
        )
    private = copy_tree(dict(raw))
    context = None if rules is None else {"rules": rules, "source": source}
    try:
        job = RayJob.model_validate(private, context=context)
    except ValidationError as exc:
        raise SpecError(problems_from_validation_error(exc, source)) from None
    return RayJobInput(source=source, raw=private, job=job)


def parse_rayjob(raw: object, source: str) -> RayJobInput:
    """Validate one RayJob document's structure and deletion strategy only.

    For jobs built by hand (tests, the lifecycle's what-ifs) that need a typed model but
    not KubeRay's other rules; the loader uses :func:`load_rayjob` with the submitter's
    rules.

    Raises:
        SpecError: every structural problem in the document, or every problem of its
            deletion strategy.
    """
    return load_rayjob(raw, source)
