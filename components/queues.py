"""Volcano Queue declarations: parsed, checked, and rendered."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from components.errors import Problem, SpecError
from components.quantity import Quantity, QuantityError
from components.validate import dns_problem

__all__ = ["QUEUE_API_VERSION", "QueueDecl", "parse_queue"]

QUEUE_API_VERSION = "scheduling.volcano.sh/v1beta1"
WAIT_FOR_OPEN = ("pulumi.com/waitFor", "jsonpath={.status.state}=Open")


@dataclass(frozen=True)
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
        out = copy.deepcopy(dict(self.raw))
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


def _resources(raw: object, path: str, source: str, out: list[Problem]) -> dict[str, Quantity]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        out.append(Problem(source, path, f"is a {type(raw).__name__}", "a map of resource quantities"))
        return {}
    parsed = {}
    for key, value in raw.items():
        try:
            q = Quantity.parse(value)
        except QuantityError as exc:
            out.append(Problem(source, f"{path}[{key!r}]", str(exc)))
            continue
        if q < Quantity.zero():
            out.append(Problem(source, f"{path}[{key!r}]", f"{value!r} is negative", "0 or more"))
        parsed[str(key)] = q
    return parsed


def parse_queue(raw: Mapping[str, Any], source: str) -> QueueDecl:
    """Validate a Queue manifest (or the short form ``{name, spec}`` from stack config).

    Raises:
        SpecError: every problem found, as Volcano's webhook would refuse them.
    """
    problems: list[Problem] = []
    meta = raw.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else raw.get("name")
    if not isinstance(name, str):
        problems.append(Problem(source, "metadata.name", "is required but missing", "a queue name"))
        name = ""
    else:
        why = dns_problem(name, "DNS-1123 subdomain", 253)
        if why:
            problems.append(
                Problem(source, "metadata.name", f"queue name {why}", "a DNS-1123 subdomain such as ray-batch")
            )
    api = raw.get("apiVersion", QUEUE_API_VERSION)
    if api != QUEUE_API_VERSION:
        problems.append(Problem(source, "apiVersion", f"{api!r} is not supported", QUEUE_API_VERSION))
    spec = raw.get("spec") or {}
    if not isinstance(spec, Mapping):
        raise SpecError([*problems, Problem(source, "spec", f"is a {type(spec).__name__}", "a map")])
    capability = _resources(spec.get("capability"), "spec.capability", source, problems)
    deserved = _resources(spec.get("deserved"), "spec.deserved", source, problems)
    guarantee_raw = spec.get("guarantee") or {}
    guarantee = _resources(
        guarantee_raw.get("resource") if isinstance(guarantee_raw, Mapping) else guarantee_raw,
        "spec.guarantee.resource",
        source,
        problems,
    )
    weight = spec.get("weight", 1)
    if isinstance(weight, bool) or not isinstance(weight, int) or not 1 <= weight <= 65535:
        problems.append(Problem(source, "spec.weight", f"{weight!r} is out of range", "a whole number from 1 to 65535"))
    # Volcano's queue webhook: guarantee <= deserved <= capability, per resource.
    for key, g in guarantee.items():
        cap = capability.get(key)
        if cap is not None and cap < g:
            problems.append(
                Problem(
                    source,
                    f"spec.capability[{key!r}]",
                    f"capability {cap} is below guarantee {g}",
                    f"capability[{key}] >= guarantee[{key}]",
                )
            )
        if deserved and (key not in deserved or deserved[key] < g):
            problems.append(
                Problem(
                    source,
                    f"spec.deserved[{key!r}]",
                    f"deserved[{key}] must be >= guarantee[{key}]={g}",
                    f"deserved[{key}] >= {g}",
                )
            )
    for key, d in deserved.items():
        cap = capability.get(key)
        if cap is not None and cap < d:
            problems.append(
                Problem(
                    source,
                    f"spec.capability[{key!r}]",
                    f"deserved[{key}]={d} must be <= capability[{key}]={cap}",
                    f"capability[{key}] >= deserved[{key}]",
                )
            )
    if problems:
        raise SpecError(problems)
    manifest = copy.deepcopy(dict(raw))
    if "metadata" not in manifest:
        # Short form from stack config: {name: q, spec: {...}}.
        manifest = {"metadata": {"name": name}, "spec": copy.deepcopy(dict(spec))}
    return QueueDecl(name, manifest, source, capability, guarantee, deserved)
