"""Reading manifests as kubectl does: YAML streams, duplicate keys refused, JSON-only values.

Every file raygang reads (manifests, stack files; snapshots through ``kube.snapshot``) goes
through :mod:`raygang.kube.kubeyaml`: bounded before and while parsing, typed as kubectl
sends it to the API server (``1e3`` is the number 1000, ``yes`` is true, a timestamp stays
text), except stack files, typed as the Pulumi CLI reads them (``read_stack_documents``:
gopkg.in/yaml.v3, ``yes`` is text). Its errors become :class:`SpecError` problems naming the
file, the document, the line and the field path.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from raygang.kube import kubeyaml
from raygang.kube.errors import MapKey, Problem, SpecError, describe_value, field_path
from raygang.kube.kubeyaml import Document, Limits, ManifestError

__all__ = [
    "MAX_VALUES",
    "json_problems",
    "problem_from",
    "read_documents",
    "read_stack_documents",
    "yaml_documents",
]


# More values than any real RayJob has; a document past it is an alias bomb or a mistake.
MAX_VALUES = 200_000


# --- YAML -------------------------------------------------------------------------------
def problem_from(exc: ManifestError, label: str | None = None) -> Problem:
    """A reader's error as a problem: ``label (document N, Kind name)``, the field path or
    the line."""
    source = label or exc.source
    named = [f"document {exc.document}"] if exc.document is not None and exc.document > 1 else []
    if exc.obj:
        named.append(exc.obj)
    if named:
        source = f"{source} ({', '.join(named)})"
    if exc.line is not None and exc.problem.startswith("is not valid YAML"):
        where, message = f"line {exc.line}", exc.problem  # where the parser stopped
    elif exc.path and exc.path != "<document>":
        where = exc.path
        message = exc.problem + (f" (line {exc.line})" if exc.line is not None else "")
    elif exc.line is not None:
        where, message = f"line {exc.line}", exc.problem
    else:
        where, message = "<file>", exc.problem
    return Problem(source, where, message, exc.accepted)


def read_documents(
    path: Path, label: str, *, limits: Limits | None = None, duplicate_keys: str = "refuse"
) -> list[Document]:
    """The documents of a file as kubectl sends them (null documents skipped), bounded.

    Args:
        path: the file; at most ``limits.max_bytes`` (+1) bytes are read, so ``/dev/zero``
            stops at once.
        label: names the file in messages.
        limits: :func:`raygang.kube.kubeyaml.default_limits` when omitted.
        duplicate_keys: ``"refuse"`` (raygang's rule) or ``"last"`` (kubectl's).

    Raises:
        SpecError: unreadable, too large, not UTF-8, not YAML, or past a limit.
    """
    try:
        data = kubeyaml.read_bounded(str(path), limits)
        return kubeyaml.load_stream(
            data,
            source=label,
            limits=limits,
            duplicate_keys="last" if duplicate_keys == "last" else "refuse",
        )
    except ManifestError as exc:
        raise SpecError([problem_from(exc, label)]) from None


def read_stack_documents(path: Path, label: str) -> list[Document]:
    """A Pulumi stack file's documents typed as the Pulumi CLI types them (yaml.v3), bounded
    as :func:`read_documents` (see :func:`raygang.kube.kubeyaml.load_stack_stream`).

    Raises:
        SpecError: unreadable, too large, not UTF-8, not YAML, past a limit, or holding
            what Pulumi refuses (a repeated key, ``.inf``) or would read at random.
    """
    try:
        data = kubeyaml.read_bounded(str(path))
        return kubeyaml.load_stack_stream(data, source=label)
    except ManifestError as exc:
        raise SpecError([problem_from(exc, label)]) from None


def yaml_documents(path: Path, label: str, accepted: str) -> list[tuple[str, object]]:
    """A manifest file's documents, each with the source that names it in messages.

    This is the function ``loader.load_files`` calls; its signature is kept stable.

    Raises:
        SpecError: as :func:`read_documents`, or a file without any document.
    """
    docs = read_documents(path, label)
    if not docs:
        raise SpecError.one(label, "<file>", "holds no YAML document", accepted)
    many = len(docs) > 1
    return [(f"{label} (document {d.index})" if many else label, d.value) for d in docs]


# --- JSON compatibility -----------------------------------------------------------------
def json_problems(doc: object, source: str) -> list[Problem]:
    """What the API server could not receive: non-string keys, NaN, odd types, bombs.

    Walks iteratively with a value budget, so neither deep nesting nor alias expansion can
    exhaust the stack or the memory.
    """
    problems: list[Problem] = []
    stack: list[tuple[object, tuple[str | int, ...]]] = [(doc, ())]
    count = 0
    while stack:
        value, loc = stack.pop()
        count += 1
        if count > MAX_VALUES:
            return [
                Problem(
                    source,
                    "<document>",
                    f"expands to more than {MAX_VALUES} values (YAML aliases?)",
                    "a manifest of ordinary size, without alias expansion",
                )
            ]
        kind = type(value)
        if kind is str or kind is int or kind is bool or value is None:
            continue  # the common leaves, without the (slow) ABC check below
        if isinstance(value, Mapping):
            for key, item in reversed(list(value.items())):
                if not isinstance(key, str):
                    problems.append(
                        Problem(
                            source,
                            field_path([*loc, MapKey(str(key))]),
                            f"YAML reads this key as {describe_value(key)}, not a string",
                            "string keys; quote keys such as 1, true or null in YAML",
                        )
                    )
                    continue
                stack.append((item, (*loc, key)))
        elif isinstance(value, list):
            stack.extend((item, (*loc, i)) for i, item in reversed(list(enumerate(value))))
        elif isinstance(value, float) and not math.isfinite(value):
            problems.append(
                Problem(
                    source,
                    field_path(loc),
                    f"{describe_value(value)} cannot be sent as JSON",
                    "a finite number",
                )
            )
        elif value is not None and not isinstance(value, str | int | float):
            problems.append(
                Problem(
                    source,
                    field_path(loc),
                    f"{describe_value(value)} cannot be sent as JSON",
                    "a string, number, boolean, list or map",
                )
            )
    return problems
