"""Companions: any Kubernetes object of a job's file, created as it is written, with
pulumi_kubernetes' class for its kind."""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

import pulumi
from pulumi_kubernetes import _utilities as k8s_utilities
from pulumi_kubernetes.apiextensions import CustomResource

from raygang.plan import Companion

# Built-in API groups whose kinds pulumi_kubernetes has a class for (the module is the
# group's first label): those classes know the kind's secret fields and aliases.
_GROUP_MODULES = {"": "core", "rbac.authorization.k8s.io": "rbac"}
_BARE_GROUPS = frozenset({"apps", "batch", "policy", "autoscaling"})
_FIXED = frozenset({"resource_name", "opts", "__props__", "api_version", "kind"})


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()


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
    if companion.is_secret:  # typed or passed through: its values are secret outputs
        opts = pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(additional_secret_outputs=["data", "stringData"])
        )
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
