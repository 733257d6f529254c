"""What every Kubernetes object says of itself: apiVersion, kind, name, namespace."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["ObjectIdentity"]


class ObjectIdentity:
    """Read-only accessors over a ``manifest`` mapping, for the classes that carry one."""

    __slots__ = ()  # the carriers are slotted: a plan holds several per job

    manifest: Mapping[str, Any]

    @property
    def api_version(self) -> str:
        """The object's apiVersion."""
        return str(self.manifest["apiVersion"])

    @property
    def kind(self) -> str:
        """The object's kind."""
        return str(self.manifest["kind"])

    @property
    def name(self) -> str:
        """The object's name."""
        return str(self.manifest["metadata"]["name"])

    @property
    def namespace(self) -> str | None:
        """The object's namespace; None for cluster-scoped objects."""
        ns = self.manifest["metadata"].get("namespace")
        return str(ns) if ns is not None else None

    @property
    def ref(self) -> str:
        """``Kind/name``, the form used in ``dependsOn``."""
        return f"{self.kind}/{self.name}"
