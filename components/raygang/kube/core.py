"""Typed, frozen views of the core/v1 fields planning reads: metadata, containers, pods.

The models follow ``k8s.io/api/core/v1/types.go`` for the fields raygang reads and ignore the
rest; scalars are validated strictly (a value the API server would refuse is refused here).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, PlainValidator
from pydantic.alias_generators import to_camel

from raygang.kube.errors import describe_value
from raygang.kube.kubeyaml import json_number_text
from raygang.kube.quantity import (
    Quantity,
    QuantityError,
    crd_quantity_error,
    parse_manifest_quantity,
)

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
        parsed = parse_manifest_quantity(value)
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

ResourceList = dict[str, QuantityField]


class FrozenModel(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="ignore",
        populate_by_name=True,
        alias_generator=to_camel,
        arbitrary_types_allowed=True,
        # The raw manifest is sent as written: coercing "2" to 2 here would hide a value
        # the API server refuses.
        strict=True,
        allow_inf_nan=False,
    )


class ObjectMeta(FrozenModel):
    """The metadata fields planning reads."""

    name: str = ""
    generate_name: str | None = None
    namespace: str = "default"
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)


class ResourceRequirements(FrozenModel):
    """``resources`` of a container, with quantities parsed exactly."""

    requests: ResourceList = Field(default_factory=dict)
    limits: ResourceList = Field(default_factory=dict)


class EnvVar(FrozenModel):
    """One ``env`` entry; only literal values are read (``valueFrom`` passes through)."""

    name: str
    value: str | None = None


class ContainerPort(FrozenModel):
    """One ``ports`` entry (the head's ``dashboard`` port decides the dashboard URL)."""

    container_port: int
    name: str | None = None
    host_port: int | None = None
    protocol: str | None = None


class Toleration(FrozenModel):
    """One ``tolerations`` entry (preflight matches them against node taints)."""

    key: str | None = None
    operator: str | None = None
    value: str | None = None
    effect: str | None = None
    toleration_seconds: int | None = None


class NodeSelectorRequirement(FrozenModel):
    """A ``matchExpressions`` / ``matchFields`` entry of a node selector term."""

    key: str
    operator: str
    values: list[str] | None = None


class NodeSelectorTerm(FrozenModel):
    """One term of a required or preferred node affinity."""

    match_expressions: list[NodeSelectorRequirement] | None = None
    match_fields: list[NodeSelectorRequirement] | None = None


class NodeSelector(FrozenModel):
    """``requiredDuringSchedulingIgnoredDuringExecution`` of a node affinity."""

    node_selector_terms: list[NodeSelectorTerm]


class PreferredSchedulingTerm(FrozenModel):
    """A weighted preferred node affinity term."""

    weight: int
    preference: NodeSelectorTerm


class NodeAffinity(FrozenModel):
    """``affinity.nodeAffinity``."""

    required_during_scheduling_ignored_during_execution: NodeSelector | None = None
    preferred_during_scheduling_ignored_during_execution: list[PreferredSchedulingTerm] | None = (
        None
    )


class Affinity(FrozenModel):
    """``affinity`` of a pod: node affinity is read; pod (anti-)affinity only typed."""

    node_affinity: NodeAffinity | None = None
    pod_affinity: dict[str, Any] | None = None
    pod_anti_affinity: dict[str, Any] | None = None


class Container(FrozenModel):
    """A container (regular or init)."""

    name: str
    image: str | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    env: list[EnvVar] | None = None
    ports: list[ContainerPort] | None = None
    volume_mounts: list[dict[str, Any]] | None = None
    env_from: list[dict[str, Any]] | None = None
    resources: ResourceRequirements = Field(default_factory=ResourceRequirements)
    # Only init containers use it: "Always" makes a native sidecar (KEP-753).
    restart_policy: str | None = None


class PodSpec(FrozenModel):
    """The pod spec fields that decide what a pod requests."""

    containers: list[Container] = Field(min_length=1)
    init_containers: list[Container] = Field(default_factory=list)
    overhead: ResourceList = Field(default_factory=dict)
    # Pod-level resources (KEP-2837) replace the container sum for the names they set.
    resources: ResourceRequirements | None = None
    restart_policy: str | None = None
    scheduler_name: str | None = None
    # Typed so that a value of the wrong shape (`tolerations: 1`) is refused here, as the
    # API server would refuse it, instead of reaching the preflight's placement model.
    node_selector: dict[str, str] | None = None
    tolerations: list[Toleration] | None = None
    affinity: Affinity | None = None
    topology_spread_constraints: list[dict[str, Any]] | None = None
    scheduling_gates: list[dict[str, Any]] | None = None
    volumes: list[dict[str, Any]] | None = None
    service_account_name: str | None = None
    priority_class_name: str | None = None


class PodTemplate(FrozenModel):
    """A pod template: metadata and spec."""

    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: PodSpec
