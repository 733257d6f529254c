"""The bounds of one read and the errors that say where it failed.

``Limits`` and ``ManifestError``, which names the source, document (its index, and its kind
and name when they were read before the error), line and field path, the problem and what
would be accepted. These are raygang's own rules, not kubectl's: kubectl reads any size and
reports go-yaml's or encoding/json's text. The byte-size check runs before anything is
parsed.

Nodes, nesting and alias expansion are bounded per document, as the API server bounds each
object (a RayJob is about 700 nodes, so a file of 1,000 of them, 7 MB, fits); bytes and the
values built for all documents (aliases expanded) are bounded per file, which bounds memory.
``Limits.sized`` raises every bound with the byte bound, for a big single document: a
cluster snapshot, one ``List`` (``kube.snapshot`` reads it sized for 64 MiB), or
``$RAYGANG_MAX_INPUT_BYTES``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Final

__all__ = [
    "BYTES_PER_NODE",
    "DEFAULT_LIMITS",
    "MAX_BYTES_ENV",
    "SIZED_BY",
    "Limits",
    "ManifestError",
    "ManifestLimitError",
    "NotJSONError",
    "check_size",
    "default_limits",
]


#: Bytes of input per node the sized bounds allow: real manifests and ``kubectl get -o yaml``
#: output take 16 to 25 bytes a node (a 300-node EKS snapshot: 2 MB, 88,000 nodes).
BYTES_PER_NODE: Final = 16
_MIB: Final = 1024 * 1024

#: How a user raises the bounds, said in every limit's message.
SIZED_BY: Final = (
    "$RAYGANG_MAX_INPUT_BYTES raises it; for a snapshot, --snapshot-max-mib or "
    "raygang:snapshotMaxMiB"
)


@dataclass(frozen=True)
class Limits:
    """How much input one call may read; every limit is refused with its value named.

    Attributes:
        max_bytes: per file (or value): the size of the whole stream, checked before
            parsing (the API server takes at most 3 MiB per object; a file may hold many).
        max_nodes: per document: YAML nodes (scalars, collections, aliases) as written, or
            values of a JSON document.
        max_expanded: per document: the values go-yaml decodes once aliases and merge keys
            are expanded (a billion-laughs or merge-doubling document is refused here, in time
            linear in its size, before anything is copied). go-yaml's own "excessive
            aliasing" rule is applied as well.
        max_values: per file: the values built for all its documents, aliases and merge
            keys expanded, so that many documents each under ``max_expanded`` cannot add up
            to an alias bomb.
        max_depth: per document: nested collections on any path, aliases expanded.
    """

    max_bytes: int = 16 * _MIB
    max_nodes: int = 100_000
    max_expanded: int = 400_000
    max_values: int = 2 * 16 * _MIB // BYTES_PER_NODE
    max_depth: int = 100

    @classmethod
    def sized(cls, max_bytes: int) -> Limits:
        """Bounds for files of up to ``max_bytes`` that may be one document: nodes and
        expansion per document up to one per ``BYTES_PER_NODE`` bytes, values per file up
        to twice that, never below the defaults; the depth stays."""
        nodes = max_bytes // BYTES_PER_NODE
        return cls(
            max_bytes=max_bytes,
            max_nodes=max(cls.max_nodes, nodes),
            max_expanded=max(cls.max_expanded, nodes),
            max_values=max(cls.max_values, 2 * nodes),
        )

    def __post_init__(self) -> None:
        names = ("max_bytes", "max_nodes", "max_expanded", "max_values", "max_depth")
        for name in names:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"Limits.{name} must be a positive int, not {value!r}")


DEFAULT_LIMITS: Final = Limits()


class ManifestError(ValueError):
    """Input kubectl would not send, or that raygang refuses; says where and what instead.

    ``obj`` is the document's kind and name (``RayJob ml/train``) when they were read."""

    def __init__(
        self,
        source: str,
        problem: str,
        *,
        accepted: str,
        path: str | None = None,
        document: int | None = None,
        line: int | None = None,
        limit: int | None = None,
        obj: str | None = None,
    ) -> None:
        self.source = source
        self.problem = problem
        self.accepted = accepted
        self.path = path
        self.document = document
        self.line = line
        self.limit = limit
        self.obj = obj
        where = [source]
        if document is not None:
            where.append(f"document {document}")
        if obj:
            where.append(obj)
        if line is not None:
            where.append(f"line {line}")
        if path:
            where.append(path)
        super().__init__(f"{', '.join(where)}: {problem}; expected {accepted}")


class ManifestLimitError(ManifestError):
    """Input past one of ``Limits``; ``limit`` holds the value that was exceeded."""


class NotJSONError(ManifestError):
    """Text that is not one JSON value (raised by :func:`load_json_value`)."""


#: The environment variable that sets ``Limits.max_bytes`` for every read raygang makes
#: (manifests, stack files, snapshots, embedded YAML and JSON, Pulumi config values).
MAX_BYTES_ENV: Final = "RAYGANG_MAX_INPUT_BYTES"


def default_limits() -> Limits:
    """``Limits()``, or ``Limits.sized`` of ``$RAYGANG_MAX_INPUT_BYTES`` when it is set.

    Read at each call, so a test or a wrapper script can change it.

    Raises:
        ManifestError: the variable is set to something other than a positive integer.
    """
    text = os.environ.get(MAX_BYTES_ENV, "").strip()
    if not text:
        return DEFAULT_LIMITS
    if not (text.isascii() and text.isdigit() and len(text) <= 15 and int(text) > 0):
        raise ManifestError(
            MAX_BYTES_ENV,
            f"is {text[:40]!r}",
            accepted="a positive number of bytes, e.g. 33554432 for 32 MiB",
        )
    return Limits.sized(int(text))


def check_size(size: int, source: str, limits: Limits) -> None:
    if size > limits.max_bytes:
        raise ManifestLimitError(
            source,
            f"is larger than {limits.max_bytes} bytes",
            accepted=f"at most {limits.max_bytes} bytes (Limits.max_bytes; {SIZED_BY})",
            limit=limits.max_bytes,
        )
