"""``metadata.generateName``, made deterministic.

The API server appends five random characters to ``generateName`` when an object is created
(``k8s.io/apiserver/pkg/storage/names``). A plan cannot wait for that: every name derived
from a RayJob's (``ray-<job>-pg``, the RayCluster, the submitter Job) must be known at
preview. So the suffix is a hash of the manifest's canonical content instead of a random
draw: the same manifest gives the same name on every run and machine, and two different
manifests with the same ``generateName`` get different names.

* The hash covers the whole manifest but ``metadata.name`` (canonical JSON: sorted keys, no
  whitespace), so a plan can tell afterwards that a name was derived
  (:func:`derived_from_generate_name`).
* The prefix is cut so that prefix and suffix fit ``max_len`` (KubeRay caps RayJob names at
  47 characters), as the API server cuts it to fit 63.
* Two identical manifests give one name: planning both is reported as a duplicate RayJob,
  not silently merged.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

__all__ = ["SUFFIX_LENGTH", "derived_from_generate_name", "generated_name", "with_generated_name"]

# The API server's random suffix is five characters; six hex digits keep collisions between
# the jobs of one namespace unlikely (one in 16.7 million per pair).
SUFFIX_LENGTH = 6


def _canonical(manifest: Mapping[str, Any]) -> bytes:
    meta = manifest.get("metadata")
    body = dict(manifest)
    if isinstance(meta, Mapping):
        body["metadata"] = {k: v for k, v in meta.items() if k != "name"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def generated_name(manifest: Mapping[str, Any], max_len: int) -> str | None:
    """The name ``metadata.generateName`` gives this manifest, or None without one.

    Args:
        manifest: the object (``metadata.name`` is not part of the hash).
        max_len: the longest name the kind accepts.
    """
    meta = manifest.get("metadata")
    if not isinstance(meta, Mapping):
        return None
    prefix = meta.get("generateName")
    if not isinstance(prefix, str) or not prefix:
        return None
    digest = hashlib.sha256(_canonical(manifest)).hexdigest()[:SUFFIX_LENGTH]
    return prefix[: max(max_len - SUFFIX_LENGTH, 0)] + digest


def with_generated_name(manifest: object, max_len: int) -> object:
    """``manifest`` with ``metadata.name`` set from ``generateName`` when the name is absent.

    Anything else (a name given, no generateName, not a mapping) is returned unchanged; the
    input is never modified.
    """
    if not isinstance(manifest, Mapping):
        return manifest
    meta = manifest.get("metadata")
    if not isinstance(meta, Mapping) or meta.get("name") not in (None, ""):
        return manifest
    name = generated_name(manifest, max_len)
    if name is None:
        return manifest
    return {**manifest, "metadata": {**meta, "name": name}}


def derived_from_generate_name(manifest: Mapping[str, Any], max_len: int) -> str | None:
    """The ``generateName`` prefix when ``metadata.name`` was derived from it, else None."""
    meta = manifest.get("metadata")
    if not isinstance(meta, Mapping):
        return None
    name = meta.get("name")
    if name is not None and name == generated_name(manifest, max_len):
        prefix = meta.get("generateName")
        return prefix if isinstance(prefix, str) else None
    return None
