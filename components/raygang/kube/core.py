"""Typed, frozen views of the core/v1 fields planning reads: metadata, containers, pods.

The models follow ``k8s.io/api/core/v1/types.go`` for the fields raygang reads and ignore the
rest; scalars are validated strictly (a value the API server would refuse is refused here).
They are frozen, slotted pydantic dataclasses (:func:`frozen_model`), validated by pydantic
like models.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Self, TypeVar, cast, dataclass_transform

from pydantic import (
    ConfigDict,
    Field,
    PlainValidator,
    StrictBool,
    StrictInt,
    StrictStr,
)
from pydantic.alias_generators import to_camel
from pydantic.dataclasses import dataclass as pydantic_dataclass
from pydantic_core import PydanticUndefined

from raygang.kube.errors import describe_value
from raygang.kube.kubeyaml import json_number_text
from raygang.kube.quantity import Quantity, QuantityError, crd_quantity_error

__all__ = [
    "INT32_MAX",
    "Affinity",
    "Container",
    "ContainerPort",
    "EnvVar",
    "NodeAffinity",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "ObjectMeta",
    "PodSpec",
    "PodTemplate",
    "PreferredSchedulingTerm",
    "ResourceRequirements",
    "StringMap",
    "Toleration",
]


INT32_MAX = 2_147_483_647

QUANTITY_EXAMPLES = "a string such as 500m, 1.5 or 2Gi, or a whole number"


def _to_quantity(value: object) -> Quantity:
    if isinstance(value, Quantity):
        return value
    refused = crd_quantity_error(value)
    if refused is not None and isinstance(value, float | int) and not isinstance(value, bool):
        # The CRDs declare quantities x-kubernetes-int-or-string: a JSON number with a
        # fraction (YAML 0.5, 1e-3) or past int64 (1e20) is refused by the API server.
        raise ValueError(
            f"{describe_value(value)} is not accepted: the CRD takes a quantity as a string "
            f"or a whole number (the API server says: {refused}); quote it "
            f"({_number_text(value)!r}) or write it in milli-units"
        )
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError(f"{describe_value(value)} is not a quantity")
    try:
        parsed = Quantity.parse(value)
    except QuantityError as exc:
        raise ValueError(str(exc)) from None
    if refused is not None:
        # ParseQuantity reads "." and "+." as 0; the CRD's pattern does not take them.
        raise ValueError(
            f"{describe_value(value)} is not a quantity (the API server says: {refused})"
        )
    return parsed


def _number_text(value: float | int) -> str:
    """The JSON text kubectl sends for the number (``1e-3`` is ``0.001``)."""
    try:
        return json_number_text(value)
    except ValueError:
        return repr(value)


QuantityField = Annotated[Quantity, PlainValidator(_to_quantity)]

ResourceList = Mapping[StrictStr, QuantityField]

StringMap = Mapping[StrictStr, StrictStr]


# Strictness lives on the leaves (StrictStr, StrictInt, ...): the raw manifest is sent as
# written, so coercing "2" to 2 here would hide a value the API server refuses. The models
# themselves are validated in lax mode, which is what lets a nested model be read from a
# mapping (strict mode takes only instances of a dataclass).
_CONFIG = ConfigDict(
    extra="ignore",
    populate_by_name=True,
    alias_generator=to_camel,
    arbitrary_types_allowed=True,
    allow_inf_nan=False,
)

_T = TypeVar("_T")


def field(
    *,
    default: Any = PydanticUndefined,
    default_factory: Callable[[], Any] | None = None,
    alias: str | None = None,
    min_length: int | None = None,
) -> Any:
    """``pydantic.Field`` for the models, keyword-only like the fields without one.

    pydantic moves a ``Field()`` that does not say ``kw_only`` to the front, as a positional
    argument; validation, and so the order of reported problems, would then no longer
    follow the order the fields are declared in.
    """
    options: dict[str, Any] = {"kw_only": True}
    if alias is not None:
        options["alias"] = alias
    if min_length is not None:
        options["min_length"] = min_length
    if default_factory is not None:
        options["default_factory"] = default_factory
    else:
        options["default"] = default
    return Field(**options)


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(field,))
def frozen_model(cls: type[_T]) -> type[_T]:
    """Make ``cls`` a frozen, slotted pydantic dataclass with the manifests' config.

    Slotted dataclasses rather than ``BaseModel``: a model instance carries a ``__dict__``
    and a set of the fields set, a slotted instance neither, so a typed job with its pod
    templates takes about a third of the memory (it is held for every job of a stack
    while the stack is planned). Fields are keyword-only, so required ones may follow
    defaulted ones as they do in the API's types.
    """
    made = pydantic_dataclass(frozen=True, slots=True, kw_only=True, config=_CONFIG)(cls)
    return cast("type[_T]", made)


class FrozenModel:
    """Base of the typed views: ``model_validate`` and ``model_copy`` as pydantic models
    have them, for the slotted dataclasses :func:`frozen_model` makes."""

    __slots__ = ()

    @classmethod
    def model_validate(cls, data: object, *, context: Mapping[str, Any] | None = None) -> Self:
        """Validate ``data`` (a mapping, camelCase keys) into a new instance.

        ``context`` reaches the validators (``ValidationInfo.context``).
        """
        validator = cls.__pydantic_validator__  # type: ignore[attr-defined]
        return cast(Self, validator.validate_python(data, context=context))

    def model_copy(self, *, update: Mapping[str, Any]) -> Self:
        """A copy with the fields in ``update`` (Python names) replaced."""
        return dataclasses.replace(self, **update)  # type: ignore[type-var]


@frozen_model
class ObjectMeta(FrozenModel):
    """The metadata fields planning reads."""

    name: StrictStr = ""
    generate_name: StrictStr | None = None
    namespace: StrictStr = "default"
    labels: StringMap = field(default_factory=dict)
    annotations: StringMap = field(default_factory=dict)


@frozen_model
class ResourceRequirements(FrozenModel):
    """``resources`` of a container, with quantities parsed exactly."""

    requests: ResourceList = field(default_factory=dict)
    limits: ResourceList = field(default_factory=dict)


@frozen_model
class EnvVar(FrozenModel):
    """One ``env`` entry; only literal values are read (``valueFrom`` passes through)."""

    name: StrictStr
    value: StrictStr | None = None


@frozen_model
class ContainerPort(FrozenModel):
    """One ``ports`` entry (the head's ``dashboard`` port decides the dashboard URL)."""

    container_port: StrictInt
    name: StrictStr | None = None
    host_port: StrictInt | None = None
    protocol: StrictStr | None = None


@frozen_model
class Toleration(FrozenModel):
    """One ``tolerations`` entry (preflight matches them against node taints)."""

    key: StrictStr | None = None
    operator: StrictStr | None = None
    value: StrictStr | None = None
    effect: StrictStr | None = None
    toleration_seconds: StrictInt | None = None


@frozen_model
class NodeSelectorRequirement(FrozenModel):
    """A ``matchExpressions`` / ``matchFields`` entry of a node selector term."""

    key: StrictStr
    operator: StrictStr
    values: list[StrictStr] | None = None


@frozen_model
class NodeSelectorTerm(FrozenModel):
    """One term of a required or preferred node affinity."""

    match_expressions: list[NodeSelectorRequirement] | None = None
    match_fields: list[NodeSelectorRequirement] | None = None


@frozen_model
class NodeSelector(FrozenModel):
    """``requiredDuringSchedulingIgnoredDuringExecution`` of a node affinity."""

    node_selector_terms: list[NodeSelectorTerm]


@frozen_model
class PreferredSchedulingTerm(FrozenModel):
    """A weighted preferred node affinity term."""

    weight: StrictInt
    preference: NodeSelectorTerm


@frozen_model
class NodeAffinity(FrozenModel):
    """``affinity.nodeAffinity``."""

    required_during_scheduling_ignored_during_execution: NodeSelector | None = None
    preferred_during_scheduling_ignored_during_execution: list[PreferredSchedulingTerm] | None = (
        None
    )


@frozen_model
class Affinity(FrozenModel):
    """``affinity`` of a pod: node affinity is read; pod (anti-)affinity only typed."""

    node_affinity: NodeAffinity | None = None
    pod_affinity: dict[StrictStr, Any] | None = None
    pod_anti_affinity: dict[StrictStr, Any] | None = None


@frozen_model
class Container(FrozenModel):
    """A container (regular or init)."""

    name: StrictStr
    image: StrictStr | None = None
    command: list[StrictStr] | None = None
    args: list[StrictStr] | None = None
    env: list[EnvVar] | None = None
    ports: list[ContainerPort] | None = None
    volume_mounts: list[dict[StrictStr, Any]] | None = None
    env_from: list[dict[StrictStr, Any]] | None = None
    # A container without ``resources`` asks for nothing.
    resources: ResourceRequirements = field(default_factory=ResourceRequirements)
    # Only init containers use it: "Always" makes a native sidecar (KEP-753).
    restart_policy: StrictStr | None = None


@frozen_model
class PodSpec(FrozenModel):
    """The pod spec fields that decide what a pod requests."""

    containers: list[Container] = field(min_length=1)
    init_containers: list[Container] = field(default_factory=list)
    overhead: ResourceList = field(default_factory=dict)
    # Pod-level resources (KEP-2837) replace the container sum for the names they set.
    resources: ResourceRequirements | None = None
    restart_policy: StrictStr | None = None
    scheduler_name: StrictStr | None = None
    # Typed so that a value of the wrong shape (`tolerations: 1`) is refused here, as the
    # API server would refuse it, instead of reaching the preflight's placement model.
    node_selector: dict[StrictStr, StrictStr] | None = None
    tolerations: list[Toleration] | None = None
    affinity: Affinity | None = None
    topology_spread_constraints: list[dict[StrictStr, Any]] | None = None
    scheduling_gates: list[dict[StrictStr, Any]] | None = None
    volumes: list[dict[StrictStr, Any]] | None = None
    service_account_name: StrictStr | None = None
    # The string "false" is not false: the API server refuses it, and the submitter's
    # secure default (no token) is decided on it.
    automount_service_account_token: StrictBool | None = None
    priority_class_name: StrictStr | None = None


@frozen_model
class PodTemplate(FrozenModel):
    """A pod template: metadata and spec."""

    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: PodSpec
