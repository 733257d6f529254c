"""Secrets never printed in clear: a Secret's values replaced by ``<redacted>``, keys kept."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

REDACTED = "<redacted>"


def redacted(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest to print: a core/v1 Secret's ``data``/``stringData`` values redacted."""
    out = dict(manifest)
    if out.get("apiVersion") == "v1" and out.get("kind") == "Secret":
        for key in ("data", "stringData"):
            if isinstance(out.get(key), Mapping):
                out[key] = dict.fromkeys(out[key], REDACTED)
    return out
