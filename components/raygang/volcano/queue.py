"""Volcano Queue declarations: parsed, checked, and rendered."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from raygang.kube.core import INT32_MAX
from raygang.kube.errors import MapKey, Problem, SpecError, describe_value, field_path
from raygang.kube.names import dns_problem, name_rules
from raygang.kube.quantity import Quantity, QuantityError
from raygang.kube.tree import copy_tree

__all__ = ["QUEUE_API_VERSION", "QueueDecl", "parse_queue"]

QUEUE_API_VERSION = "scheduling.volcano.sh/v1beta1"
WAIT_FOR_OPEN = ("pulumi.com/waitFor", "jsonpath={.status.state}=Open")


@dataclass(frozen=True, slots=True)
class QueueDecl:
    """A Queue the stack declares, so raygang creates it.

    Attributes:
        name: the Queue's name (cluster-scoped).
        raw: a private copy of the manifest, rendered verbatim.
        source: where it was declared.
        capability: parsed ``spec.capability`` (empty: unlimited).
        guarantee: parsed ``spec.guarantee.resource``.
        deserved: parsed ``spec.deserved``.
    """

    name: str
    raw: Mapping[str, Any]
    source: str
    capability: Mapping[str, Quantity]
    guarantee: Mapping[str, Quantity]
    deserved: Mapping[str, Quantity]

    def manifest(self) -> dict[str, Any]:
        """The Queue object to create: the user's manifest with apiVersion and kind fixed."""
        out = copy_tree(dict(self.raw))
        out["apiVersion"] = QUEUE_API_VERSION
        out["kind"] = "Queue"
        meta = out.get("metadata")
        if not isinstance(meta, dict):
            meta = out["metadata"] = {"name": self.name}
        annotations = meta.get("annotations")
        if not isinstance(annotations, dict):
            annotations = meta["annotations"] = {}
        # Volcano's webhook refuses a PodGroup whose queue is not Open yet, so the
        # PodGroup must wait until the queue controller has opened the new queue.
        annotations[WAIT_FOR_OPEN[0]] = WAIT_FOR_OPEN[1]
        return out

    def same_as(self, other: QueueDecl) -> bool:
        """True when two declarations would create the same object."""
        return self.manifest() == other.manifest()


_QUANTITY_RULES = "a string such as 500m, 1.5, 64 or 256Gi, or a whole number"
# Volcano's scheduler creates these two itself; creating them again fails (AlreadyExists).
_BUILT_IN = ("default", "root")
_DEQUEUE = ("fifo", "traverse")


def _resources(raw: object, path: str, source: str, out: list[Problem]) -> dict[str, Quantity]:
    """Parse a resource list as Volcano's CRD and ValidateResourceQuantityValue would."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        out.append(
            Problem(source, path, f"{describe_value(raw)} is not a map", "a map of quantities")
        )
        return {}
    parsed = {}
    for key, value in raw.items():
        where = f"{path}[{str(key)!r}]"
        if isinstance(value, float | bool):
            # The CRD declares quantities int-or-string: a YAML 0.5 is refused.
            out.append(
                Problem(source, where, f"{describe_value(value)} is not accepted", _QUANTITY_RULES)
            )
            continue
        try:
            q = Quantity.parse(value)
        except QuantityError as exc:
            out.append(Problem(source, where, str(exc), _QUANTITY_RULES))
            continue
        if q < Quantity.zero():
            out.append(Problem(source, where, f"{describe_value(value)} is negative", "0 or more"))
            continue
        parsed[str(key)] = q
    return parsed


def _check_fields(spec: Mapping[str, Any], name: str, source: str, out: list[Problem]) -> None:
    """The scalar fields of the Queue CRD (types, ranges, enums, patterns)."""

    def bad(path: str, message: str, accepted: str) -> None:
        out.append(Problem(source, path, message, accepted))

    weight = spec.get("weight", 1)
    if isinstance(weight, bool) or not isinstance(weight, int) or not 1 <= weight <= 65535:
        bad(
            "spec.weight",
            f"{describe_value(weight)} is not accepted",
            "a whole number from 1 to 65535",
        )
    reclaimable = spec.get("reclaimable")
    if reclaimable is not None and not isinstance(reclaimable, bool):
        bad(
            "spec.reclaimable",
            f"{describe_value(reclaimable)} is not a boolean",
            "true or false, without quotes",
        )
    priority = spec.get("priority")
    if priority is not None and (
        isinstance(priority, bool)
        or not isinstance(priority, int)
        or not 0 <= priority <= INT32_MAX
    ):
        bad(
            "spec.priority",
            f"{describe_value(priority)} is not accepted",
            f"a whole number from 0 to {INT32_MAX}",
        )
    parent = spec.get("parent")
    if parent is not None:
        why = (
            dns_problem(parent, "DNS-1123 subdomain", 253)
            if isinstance(parent, str)
            else f"{describe_value(parent)} is not a string"
        )
        if why:
            bad("spec.parent", f"parent queue name {why}", name_rules("DNS-1123 subdomain", 253))
        elif parent == name:
            bad(
                "spec.parent", f"queue {name} cannot use itself as parent", "another queue, or root"
            )
    strategy = spec.get("dequeueStrategy")
    if strategy is not None and strategy not in _DEQUEUE:
        bad(
            "spec.dequeueStrategy",
            f"{describe_value(strategy)} is not accepted",
            " or ".join(_DEQUEUE),
        )
    kind = spec.get("type")
    if kind is not None and (not isinstance(kind, str) or len(kind) > 253):
        bad(
            "spec.type",
            f"{describe_value(kind)} is not accepted",
            "a string of at most 253 characters",
        )


def _check_quantities(
    capability: Mapping[str, Quantity],
    guarantee: Mapping[str, Quantity],
    deserved: Mapping[str, Quantity],
    source: str,
    out: list[Problem],
) -> None:
    """Volcano's validateResourceQuantityOfQueue: guarantee <= deserved <= capability."""
    for key, g in guarantee.items():
        cap = capability.get(key)
        if cap is not None and cap < g:
            # Not a webhook rule of its own, but the root cause of the deserved one below.
            out.append(
                Problem(
                    source,
                    field_path(["spec", "capability", MapKey(key)]),
                    f"capability {cap} is below guarantee {g}",
                    f"capability[{key}] >= guarantee[{key}]",
                )
            )
        des = deserved.get(key)
        if des is None or des < g:
            # Volcano requires a deserved value for every guaranteed resource.
            shown = f"deserved[{key}]" if des is None else f"deserved[{key}]={des}"
            out.append(
                Problem(
                    source,
                    field_path(["spec", "deserved", MapKey(key)]),
                    f"{shown} must be >= guarantee[{key}]={g}",
                    f"deserved[{key}] >= {g}",
                )
            )
    for key, d in deserved.items():
        cap = capability.get(key)
        if cap is not None and cap < d:
            out.append(
                Problem(
                    source,
                    field_path(["spec", "deserved", MapKey(key)]),
                    f"deserved[{key}]={d} must be <= capability[{key}]={cap}",
                    f"deserved[{key}] <= {cap}",
                )
            )


def parse_queue(raw: Mapping[str, Any], source: str) -> QueueDecl:
    """Validate a Queue manifest (or the short form ``{name, spec}`` from stack config).

    Args:
        raw: the Queue as written.
        source: where it was declared, for messages.

    Returns:
        The checked declaration.

    Raises:
        SpecError: every problem found, as Volcano's CRD and webhook would refuse them.
    """
    problems: list[Problem] = []
    meta = raw.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else raw.get("name")
    if name is None:
        problems.append(
            Problem(
                source, "metadata.name", "is required but missing", "a queue name such as ray-batch"
            )
        )
        name = ""
    elif not isinstance(name, str):
        problems.append(
            Problem(
                source,
                "metadata.name",
                f"{describe_value(name)} is not a string",
                "a queue name such as ray-batch",
            )
        )
        name = ""
    else:
        why = dns_problem(name, "DNS-1123 subdomain", 253)
        if why:
            problems.append(
                Problem(
                    source,
                    "metadata.name",
                    f"queue name {why}",
                    name_rules("DNS-1123 subdomain", 253),
                )
            )
        elif name in _BUILT_IN:
            problems.append(
                Problem(
                    source,
                    "metadata.name",
                    f"the {name!r} queue is created by Volcano's scheduler itself; declaring it "
                    "would fail with AlreadyExists",
                    "another name; jobs may use the default queue without declaring it",
                )
            )
    if not isinstance(meta, Mapping):
        for key in raw:
            if key not in ("name", "spec", "apiVersion", "kind", "metadata"):
                problems.append(
                    Problem(
                        source,
                        str(key),
                        "is not a field of the short form {name, spec} and would be lost",
                        "a full Queue manifest (apiVersion, kind, metadata, spec)",
                    )
                )
    if meta is not None and not isinstance(meta, Mapping):
        problems.append(
            Problem(source, "metadata", f"{describe_value(meta)} is not a map", "a map with a name")
        )
    api = raw.get("apiVersion", QUEUE_API_VERSION)
    if api != QUEUE_API_VERSION:
        problems.append(
            Problem(
                source, "apiVersion", f"{describe_value(api)} is not supported", QUEUE_API_VERSION
            )
        )
    spec = raw.get("spec") or {}
    if not isinstance(spec, Mapping):
        raise SpecError(
            [
                *problems,
                Problem(source, "spec", f"{describe_value(spec)} is not a map", "a Queue spec map"),
            ]
        )
    capability = _resources(spec.get("capability"), "spec.capability", source, problems)
    deserved = _resources(spec.get("deserved"), "spec.deserved", source, problems)
    guarantee_raw = spec.get("guarantee")
    if guarantee_raw is not None and not isinstance(guarantee_raw, Mapping):
        problems.append(
            Problem(
                source,
                "spec.guarantee",
                f"{describe_value(guarantee_raw)} is not a map",
                "{resource: {cpu: ...}}",
            )
        )
        guarantee_raw = {}
    guarantee = _resources(
        (guarantee_raw or {}).get("resource"), "spec.guarantee.resource", source, problems
    )
    _check_fields(spec, name, source, problems)
    _check_quantities(capability, guarantee, deserved, source, problems)
    if problems:
        raise SpecError(problems)
    manifest = copy_tree(dict(raw))
    if not isinstance(meta, Mapping):
        # Short form from stack config: {name: q, spec: {...}}.
        manifest = {"metadata": {"name": name}, "spec": copy_tree(dict(spec))}
    return QueueDecl(name, manifest, source, capability, guarantee, deserved)
