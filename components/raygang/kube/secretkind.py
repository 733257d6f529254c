"""One definition of "this object is a core/v1 Secret", for every output that prints it.

A Secret's values must never be printed, so the test errs towards hiding: an object is a
Secret when its apiVersion names the core group (``v1``, or ``/v1``, which
``k8s.io/apimachinery`` ``pkg/runtime/schema/group_version.go`` ``ParseGroupVersion``
reads as the core group too) and its kind is ``Secret`` in any case or with surrounding
blanks. The loader refuses the odd spellings of kind (:mod:`raygang.kube.objectnames`), but the
outputs do not rely on that: table, JSON, YAML, ``--out`` and the Pulumi program all ask
this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["SECRET_VALUE_FIELDS", "is_core_secret", "secret_keys"]

# The fields of a core/v1 Secret that hold values (``k8s.io/api/core/v1`` ``Secret``).
SECRET_VALUE_FIELDS: Final = ("data", "stringData")


def is_core_secret(manifest: Mapping[str, Any]) -> bool:
    """True when the API server would store ``manifest`` as a core/v1 Secret."""
    api, kind = manifest.get("apiVersion"), manifest.get("kind")
    if not isinstance(api, str) or not isinstance(kind, str):
        return False
    group = api.strip().rpartition("/")[0].strip()
    return group == "" and kind.strip().casefold() == "secret"


def secret_keys(manifest: Mapping[str, Any]) -> list[str]:
    """The keys of a Secret's value fields, sorted: what may be printed of it."""
    keys: set[str] = set()
    for field in SECRET_VALUE_FIELDS:
        value = manifest.get(field)
        if isinstance(value, Mapping):
            keys.update(str(key) for key in value)
    return sorted(keys)
