"""Testing programs that compose raygang's components, under Pulumi's own mocks.

``pulumi.runtime.set_mocks(KubernetesMocks(), ...)`` answers every registration as the API
server would for these objects: the inputs come back as the state, with ``metadata.name``
and a ``metadata.uid`` (``uid-<resource name>``), so the ownerReferences raygang builds
from the job record's UID resolve. raygang's own tests and benchmarks use it.

Public, beside the names ``raygang`` exports: a user's tests import it from here.
"""

from __future__ import annotations

from typing import Any

import pulumi.runtime

__all__ = ["KubernetesMocks"]


class KubernetesMocks(pulumi.runtime.Mocks):
    """Echo inputs back as state, with the name and UID Kubernetes would assign."""

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        """Create: the state is the inputs plus ``metadata.name`` and ``metadata.uid``."""
        state = dict(args.inputs)
        if args.typ.startswith("kubernetes:"):
            meta = dict(state.get("metadata") or {})
            meta.setdefault("name", args.name)
            meta["uid"] = f"uid-{args.name}"
            state["metadata"] = meta
        return args.name, state

    def call(
        self, args: pulumi.runtime.MockCallArgs
    ) -> tuple[dict[Any, Any], list[tuple[str, str]] | None]:
        """No invokes are expected: an empty result."""
        return {}, None
