"""The manifests as YAML documents for kubectl, and as one file each (YAML or JSON)."""

from __future__ import annotations

import json

import yaml

from raygang.plan import StackPlan
from raygang.render.order import stream
from raygang.render.redact import redacted


def _dump(manifest: object, allow_unicode: bool = True) -> str:
    # No line folding: a long submitter command stays one line, so diffs stay readable.
    return yaml.safe_dump(
        manifest,
        sort_keys=True,
        default_flow_style=False,
        allow_unicode=allow_unicode,
        width=2**31 - 1,
    )


def render_yaml(plan: StackPlan, allow_unicode: bool = True) -> str:
    """The manifests, one YAML document each, in creation order (no ownerReferences).

    ``allow_unicode=False`` writes non-ASCII text as YAML escapes, for an ASCII stdout.
    """
    return "".join(f"---\n{_dump(redacted(r.manifest), allow_unicode)}" for r in stream(plan))


def manifest_files(plan: StackPlan, fmt: str = "yaml") -> list[tuple[str, str]]:
    """``(file name, text)`` per manifest, numbered in creation order (``yaml`` or ``json``)."""
    suffix = "json" if fmt == "json" else "yaml"
    files = []
    for index, resource in enumerate(stream(plan), start=1):
        ns = resource.namespace or "cluster"
        name = f"{index:03d}-{resource.kind.lower()}-{ns}-{resource.name}.{suffix}"
        manifest = redacted(resource.manifest)
        text = (
            json.dumps(manifest, indent=2, sort_keys=True) + "\n"
            if fmt == "json"
            else _dump(manifest)
        )
        files.append((name, text))
    return files
