"""Secrets never printed in clear: a Secret's values replaced by ``<redacted>``, keys kept."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from raygang.kube.secretkind import SECRET_VALUE_FIELDS, is_core_secret

REDACTED = "<redacted>"


def redacted(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest to print: a core/v1 Secret's ``data``/``stringData`` values redacted.

    Which objects are Secrets is :func:`~raygang.kube.secretkind.is_core_secret`'s call, the
    same for every output. A value field that is not a map is replaced whole.
    """
    out = dict(manifest)
    if is_core_secret(out):
        for key in SECRET_VALUE_FIELDS:
            value = out.get(key)
            if isinstance(value, Mapping):
                out[key] = dict.fromkeys(value, REDACTED)
            elif value is not None:
                out[key] = REDACTED
    return out
