"""The resources a policy sees, as plain data: what the pack judges, without the policy SDK.

The Pulumi engine hands a policy each resource's type token (``kubernetes:ray.io/v1:RayCluster``,
``kubernetes:batch/v1:Job``), URN, name and input properties in their wire form (camelCase, as
the Kubernetes API has them). During a preview, an input that depends on another resource's
output is *unknown*; the policy SDK (pulumi_policy ``proxy.py``) marks it with sentinel strings,
which the pack's wrapper turns into :data:`UNKNOWN` so the rules here can say which field they
cannot judge yet instead of failing or passing silently.

Everything here reads defensively: someone else's program may declare a RayCluster whose
``spec`` is a string, and the pack must name the field, never crash (a crash blocks every
preview that runs the pack).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "UNKNOWN",
    "Finding",
    "PodTemplate",
    "StackResource",
    "Unknown",
    "dig",
    "unknown_paths",
]


class Unknown:
    """A value the engine does not know yet (an output of a resource not created yet)."""

    def __repr__(self) -> str:
        return "<unknown>"

    # One instance only: rules compare with ``is``, so a copied resource keeps it.
    def __copy__(self) -> Unknown:
        return self

    def __deepcopy__(self, memo: object) -> Unknown:
        return self


#: The one unknown value; rules compare with ``is``.
UNKNOWN: Final = Unknown()


@dataclass(frozen=True, slots=True)
class Finding:
    """What a rule found.

    Attributes:
        message: the violation, naming the resource and the field.
        urn: the resource it is about, when one is (stack policies may name any).
        judged: False when the rule could not judge yet (an unknown value at preview): the
            pack reports it as advisory whatever the policy's level.
    """

    message: str
    urn: str | None = None
    judged: bool = True


def dig(value: object, *path: str | int) -> object:
    """``value[path[0]][path[1]]...``, or None where a step is missing or of the wrong type."""
    for step in path:
        if isinstance(step, int):
            if not isinstance(value, Sequence) or isinstance(value, str | bytes):
                return None
            if not -len(value) <= step < len(value):
                return None
            value = value[step]
        else:
            if not isinstance(value, Mapping):
                return None
            value = value.get(step)
    return value


def unknown_paths(value: object, path: str = "") -> list[str]:
    """The dotted paths (``spec.workerGroupSpecs[0].replicas``) of every unknown value inside."""
    if value is UNKNOWN:
        return [path or "<value>"]
    found: list[str] = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            found += unknown_paths(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found += unknown_paths(item, f"{path}[{index}]")
    return found


@dataclass(frozen=True, slots=True)
class PodTemplate:
    """One pod template inside a resource, with where it lives.

    Attributes:
        role: ``head``, ``worker`` (a RayCluster's), ``submitter`` (a Job's) or ``pod``.
        group: the worker group name (``groupName``) for a worker, else "".
        path: the template's field path in the resource (``spec.headGroupSpec.template``).
        template: the template (``metadata`` and ``spec``), as declared.
    """

    role: str
    group: str
    path: str
    template: Mapping[str, Any]

    @property
    def annotations(self) -> Mapping[str, Any]:
        """``metadata.annotations``; empty when missing or malformed."""
        value = dig(self.template, "metadata", "annotations")
        return value if isinstance(value, Mapping) else {}

    @property
    def labels(self) -> Mapping[str, Any]:
        """``metadata.labels``; empty when missing or malformed."""
        value = dig(self.template, "metadata", "labels")
        return value if isinstance(value, Mapping) else {}

    @property
    def spec(self) -> Mapping[str, Any]:
        """The pod spec; empty when missing or malformed."""
        value = self.template.get("spec")
        return value if isinstance(value, Mapping) else {}


@dataclass(frozen=True, slots=True)
class StackResource:
    """One resource of the stack, as the engine registers it.

    Attributes:
        type: the type token, ``kubernetes:<apiVersion>:<Kind>`` for Kubernetes objects.
        urn: the resource's URN.
        name: the Pulumi resource name.
        props: the input properties (``apiVersion``, ``kind``, ``metadata``, ``spec``...).
    """

    type: str
    urn: str
    name: str
    props: Mapping[str, Any]

    @property
    def api_version(self) -> str:
        """The Kubernetes apiVersion from the type token (``core/v1`` is ``v1``)."""
        parts = self.type.split(":")
        if len(parts) != 3 or parts[0] != "kubernetes":
            return ""
        return parts[1].removeprefix("core/")

    @property
    def kind(self) -> str:
        """The Kubernetes kind from the type token; "" for anything not Kubernetes."""
        parts = self.type.split(":")
        return parts[2] if len(parts) == 3 and parts[0] == "kubernetes" else ""

    @property
    def group(self) -> str:
        """The API group (``ray.io``); "" for the core group."""
        return self.api_version.rpartition("/")[0]

    def is_kind(self, group: str, kind: str) -> bool:
        """True for that API group and kind, any version."""
        return self.kind == kind and self.group == group

    @property
    def metadata(self) -> Mapping[str, Any]:
        """``metadata``; empty when missing or malformed."""
        value = self.props.get("metadata")
        return value if isinstance(value, Mapping) else {}

    @property
    def object_name(self) -> object:
        """``metadata.name`` (may be :data:`UNKNOWN` or missing)."""
        return self.metadata.get("name")

    @property
    def namespace(self) -> object:
        """``metadata.namespace``; "" when unset (the provider's default namespace)."""
        return self.metadata.get("namespace") or ""

    @property
    def labels(self) -> Mapping[str, Any]:
        """``metadata.labels``; empty when missing or malformed."""
        value = self.metadata.get("labels")
        return value if isinstance(value, Mapping) else {}

    @property
    def spec(self) -> Mapping[str, Any]:
        """``spec``; empty when missing or malformed."""
        value = self.props.get("spec")
        return value if isinstance(value, Mapping) else {}

    def title(self) -> str:
        """``RayCluster default/demo-job`` for messages; the Pulumi name when unnamed."""
        name = self.object_name
        if not isinstance(name, str) or not name:
            return f"{self.kind or self.type} {self.name} (Pulumi name)"
        namespace = self.namespace
        where = f"{namespace}/" if isinstance(namespace, str) and namespace else ""
        return f"{self.kind} {where}{name}"

    def pod_templates(self) -> Iterator[PodTemplate]:
        """The pod templates this resource declares: a RayCluster's head and workers, a
        RayJob's cluster and submitter, a Job's pod; malformed parts are skipped (the
        validation policy names them)."""
        if self.is_kind("ray.io", "RayCluster"):
            yield from _cluster_templates(self.spec, "spec")
        elif self.is_kind("ray.io", "RayJob"):
            cluster = self.spec.get("rayClusterSpec")
            if isinstance(cluster, Mapping):
                yield from _cluster_templates(cluster, "spec.rayClusterSpec")
            submitter = self.spec.get("submitterPodTemplate")
            if isinstance(submitter, Mapping):
                yield PodTemplate("submitter", "", "spec.submitterPodTemplate", submitter)
        elif self.is_kind("batch", "Job"):
            template = self.spec.get("template")
            if isinstance(template, Mapping):
                yield PodTemplate("submitter", "", "spec.template", template)


def _cluster_templates(cluster: Mapping[str, Any], at: str) -> Iterator[PodTemplate]:
    head = dig(cluster, "headGroupSpec", "template")
    if isinstance(head, Mapping):
        yield PodTemplate("head", "", f"{at}.headGroupSpec.template", head)
    workers = cluster.get("workerGroupSpecs")
    if not isinstance(workers, list):
        return
    for index, group in enumerate(workers):
        template = dig(group, "template")
        if isinstance(template, Mapping):
            name = dig(group, "groupName")
            yield PodTemplate(
                "worker",
                name if isinstance(name, str) else "",
                f"{at}.workerGroupSpecs[{index}].template",
                template,
            )
