"""The bounds of one read and the errors that say where it failed.

``Limits`` (``max_bytes`` overridable by ``$RAYGANG_MAX_INPUT_BYTES``) and ``ManifestError``,
which names the source, document, line and field path, the problem and what would be accepted.
These are raygang's own rules, not kubectl's: kubectl reads any size and reports go-yaml's or
encoding/json's text. The byte-size check runs before anything is parsed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Final

__all__ = [
    "DEFAULT_LIMITS",
    "MAX_BYTES_ENV",
    "Limits",
    "ManifestError",
    "ManifestLimitError",
    "NotJSONError",
    "check_size",
    "default_limits",
]


@dataclass(frozen=True)
class Limits:
    """How much input one call may read; every limit is refused with its value named.

    Attributes:
        max_bytes: size of the whole stream, checked before parsing (the API server takes at
            most 3 MiB per object; a file may hold many).
        max_nodes: YAML nodes (scalars, collections, aliases) in the stream as written.
        max_expanded: per document, the values go-yaml decodes once aliases and merge keys
            are expanded (a billion-laughs or merge-doubling document is refused here, in time
            linear in its size). At or below 400,000 go-yaml's own alias rule is mirrored
            exactly.
        max_depth: nested collections on any path, aliases expanded.
    """

    max_bytes: int = 16 * 1024 * 1024
    max_nodes: int = 100_000
    max_expanded: int = 400_000
    max_depth: int = 100

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_nodes", "max_expanded", "max_depth"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"Limits.{name} must be a positive int, not {value!r}")


DEFAULT_LIMITS: Final = Limits()


class ManifestError(ValueError):
    """Input kubectl would not send, or that raygang refuses; says where and what instead."""

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
    ) -> None:
        self.source = source
        self.problem = problem
        self.accepted = accepted
        self.path = path
        self.document = document
        self.line = line
        self.limit = limit
        where = [source]
        if document is not None:
            where.append(f"document {document}")
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
    """``Limits()``, with ``max_bytes`` from ``$RAYGANG_MAX_INPUT_BYTES`` when it is set.

    Read at each call, so a test or a wrapper script can change it; other limits are fixed
    (no real manifest comes near them).

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
    return Limits(max_bytes=int(text))


def check_size(size: int, source: str, limits: Limits) -> None:
    if size > limits.max_bytes:
        raise ManifestLimitError(
            source,
            f"is larger than {limits.max_bytes} bytes",
            accepted=(
                f"at most {limits.max_bytes} bytes (Limits.max_bytes; ${MAX_BYTES_ENV} sets it)"
            ),
            limit=limits.max_bytes,
        )
