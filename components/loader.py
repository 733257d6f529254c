"""Reading RayJobs and Queues from YAML files and from stack config.

A file may hold several documents: ``ray.io/v1`` RayJobs are jobs, Volcano Queues are
declared queues, and anything else (the ConfigMap KubeRay's samples ship beside a job, say)
is reported and ignored. Problems in every document are collected before raising.

Rules beyond "parse the YAML", each because the alternative loses or corrupts input:

* A file given explicitly (on the command line, or in ``raygang:manifests``) must declare
  at least one RayJob or Queue; a file of other kinds only would plan nothing, silently.
  A Queue-only file is fine: queues are often kept apart from the jobs that use them.
* A duplicated key in a YAML mapping is an error (PyYAML would keep the last value
  silently; kubectl refuses the file).
* YAML timestamps stay text (``jobId: 2024-01-01`` is the string kubectl would send),
  and every document must be representable as JSON, the form the API server receives:
  string keys, finite numbers, and a bounded size (YAML aliases can expand exponentially).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from components.batch import batch_collection
from components.errors import MapKey, Problem, SpecError, describe_value, field_path
from components.queues import QUEUE_API_VERSION, QueueDecl, parse_queue
from components.spec import RayJobInput
from components.validate import load_rayjob

__all__ = ["MAX_VALUES", "Documents", "load_documents", "load_files"]

# More values than any real RayJob has; a document past it is an alias bomb or a mistake.
MAX_VALUES = 200_000
_ACCEPTED_KINDS = "a RayJob (apiVersion: ray.io/v1) or a Volcano Queue (" + QUEUE_API_VERSION + ")"


@dataclass(frozen=True)
class Documents:
    """What a set of inputs declares.

    Attributes:
        jobs: RayJobs in input order.
        queues: declared Queues, one per name.
        ignored: a line per document of another kind.
    """

    jobs: tuple[RayJobInput, ...] = ()
    queues: tuple[QueueDecl, ...] = ()
    ignored: tuple[str, ...] = field(default=())


# --- YAML -------------------------------------------------------------------------------


class _Loader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys and keeps timestamps as text."""


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: dict[object, yaml.Node] = {}
    for key_node, _ in node.value:
        # Merge keys (<<) may be overridden by explicit keys: that is YAML, not a mistake.
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node, deep=True)
        try:
            first = seen.get(key)
        except TypeError:
            continue  # unhashable: construct_mapping reports it
        if first is not None:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                f"found duplicate key {key!r} (first at line {first.start_mark.line + 1}); "
                "kubectl refuses duplicate keys and PyYAML would keep only the last value",
                key_node.start_mark,
            )
        seen[key] = key_node
    return loader.construct_mapping(node, deep=True)


def _construct_text(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    # kubectl's YAML-to-JSON keeps an unquoted 2024-01-01 as the string it reads as.
    assert isinstance(node, yaml.ScalarNode)
    return loader.construct_scalar(node)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_text)


def _yaml_documents(path: Path, label: str) -> list[tuple[str, object]]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SpecError.one(label, "<file>", "is not UTF-8 text", "a YAML file") from None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise SpecError.one(
            label, "<file>", f"cannot be read: {reason}", "a readable YAML file"
        ) from None
    try:
        docs = list(yaml.load_all(text, Loader=_Loader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "<file>"
        reason = getattr(exc, "problem", None) or str(exc)
        raise SpecError.one(
            label, where, f"is not valid YAML: {reason}", "a YAML document stream"
        ) from None
    except RecursionError:
        raise SpecError.one(
            label, "<file>", "is nested too deeply to read", "a Kubernetes manifest"
        ) from None
    present = [d for d in docs if d is not None]
    if not present:
        raise SpecError.one(label, "<file>", "holds no YAML document", _ACCEPTED_KINDS)
    many = len(present) > 1
    out: list[tuple[str, object]] = []
    for index, doc in enumerate(docs):
        if doc is not None:
            out.append((f"{label} (document {index + 1})" if many else label, doc))
    return out


# --- JSON compatibility -----------------------------------------------------------------


def _json_problems(doc: object, source: str) -> list[Problem]:
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


# --- documents --------------------------------------------------------------------------


def _classify(doc: object) -> str:
    if not isinstance(doc, Mapping):
        return "not-object"
    kind, api = doc.get("kind"), doc.get("apiVersion")
    if kind == "RayJob":
        return "job"
    if kind == "Queue" and isinstance(api, str) and api.startswith("scheduling.volcano.sh/"):
        return "queue"
    if isinstance(kind, str) and kind.lower() in ("rayjob", "rayjobs"):
        return "misspelt"
    if kind is None or kind == "":
        return "no-kind"
    return "other"


def _ignored_note(doc: Mapping[str, Any], source: str) -> str:
    meta = doc.get("metadata")
    name = meta.get("name", "<no name>") if isinstance(meta, Mapping) else "<no name>"
    api = doc.get("apiVersion", "")
    return f"{source}: {api} {doc.get('kind')} {name} ignored (not a RayJob or Queue)"


def _load_one(
    what: str,
    doc: object,
    source: str,
    jobs: list[RayJobInput],
    queues: dict[str, QueueDecl],
    ignored: list[str],
) -> None:
    """Parse one document into ``jobs``/``queues``/``ignored``; raise its problems."""
    if what == "job":
        jobs.append(load_rayjob(doc, source))
    elif what == "queue":
        assert isinstance(doc, Mapping)
        queue = parse_queue(doc, source)
        known = queues.get(queue.name)
        if known is not None and not known.same_as(queue):
            raise SpecError.one(
                source,
                "metadata.name",
                f"queue {queue.name!r} is also declared differently in {known.source}",
                "one declaration per queue name",
            )
        queues.setdefault(queue.name, queue)
    elif what == "misspelt":
        assert isinstance(doc, Mapping)
        raise SpecError.one(
            source,
            "kind",
            f"{describe_value(doc['kind'])} is not accepted",
            "RayJob (case matters)",
        )
    elif what == "no-kind":
        raise SpecError.one(source, "kind", "is required but missing", _ACCEPTED_KINDS)
    elif what == "other":
        assert isinstance(doc, Mapping)
        ignored.append(_ignored_note(doc, source))
    elif doc is not None:
        raise SpecError.one(
            source,
            "<document>",
            f"{describe_value(doc)} is not a Kubernetes object",
            _ACCEPTED_KINDS,
        )


def load_documents(docs: Iterable[tuple[str, object]]) -> Documents:
    """Parse and check documents given as ``(source, object)`` pairs.

    Args:
        docs: each document with the source that names it in messages.

    Returns:
        The jobs and queues, and a note per document of another kind.

    Raises:
        SpecError: every problem in every document.
    """
    with batch_collection():
        return _load_documents(docs)


def _load_documents(docs: Iterable[tuple[str, object]]) -> Documents:
    jobs: list[RayJobInput] = []
    queues: dict[str, QueueDecl] = {}
    ignored: list[str] = []
    problems: list[Problem] = []
    for source, doc in docs:
        what = _classify(doc)
        # Documents raygang ignores are not sent anywhere: only its own must be JSON.
        not_json = _json_problems(doc, source) if what != "other" else []
        if not_json:
            # Checking a document the API server could not even receive would report the
            # same values again under other names; these come first.
            problems.extend(not_json)
            continue
        try:
            _load_one(what, doc, source, jobs, queues, ignored)
        except SpecError as exc:
            problems.extend(exc.problems)
    seen: dict[tuple[str, str], str] = {}
    for item in jobs:
        key = (item.namespace, item.name)
        if key in seen:
            problems.append(
                Problem(
                    item.source,
                    "metadata.name",
                    f"RayJob {item.namespace}/{item.name} is also defined in {seen[key]}",
                    "one RayJob per namespace and name",
                )
            )
        seen.setdefault(key, item.source)
    if problems:
        raise SpecError(problems)
    return Documents(tuple(jobs), tuple(queues.values()), tuple(ignored))


def _declares_something(docs: Sequence[tuple[str, object]]) -> bool:
    return any(_classify(doc) in ("job", "queue", "misspelt", "no-kind") for _, doc in docs)


def load_files(
    paths: Sequence[Path],
    inline_jobs: Sequence[object] = (),
    inline_queues: Sequence[object] = (),
    base: Path | None = None,
) -> Documents:
    """Load YAML files and inline stack-config objects together.

    Args:
        paths: YAML files, read in order; relative paths are relative to ``base``.
        inline_jobs: RayJob objects from ``raygang:jobs``.
        inline_queues: Queue objects from ``raygang:queues``.
        base: the project directory; sources are named relative to it, so messages and
            plans read the same on every checkout.

    Returns:
        Everything the inputs declare.

    Raises:
        SpecError: every problem in every input.
    """
    docs: list[tuple[str, Any]] = []
    problems: list[Problem] = []
    order = [str(path) for path in paths]
    for path in paths:
        try:
            found = _yaml_documents(base / path if base else path, str(path))
        except SpecError as exc:
            problems.extend(exc.problems)
            continue
        if not _declares_something(found):
            kinds = ", ".join(
                f"{d.get('kind')}" if isinstance(d, Mapping) else type(d).__name__ for _, d in found
            )
            problems.append(
                Problem(
                    str(path),
                    "<file>",
                    f"declares no RayJob or Queue (found: {kinds}), so it would plan nothing",
                    "a file with at least " + _ACCEPTED_KINDS,
                )
            )
        docs.extend(found)
    docs += [
        (f"stack config raygang:queues[{i}]", _as_queue(q)) for i, q in enumerate(inline_queues)
    ]
    docs += [(f"stack config raygang:jobs[{i}]", j) for i, j in enumerate(inline_jobs)]
    try:
        result = load_documents(docs)
    except SpecError as exc:
        problems.extend(exc.problems)
    if problems:
        raise SpecError(sorted(problems, key=lambda p: _input_order(p.source, order)))
    return result


def _input_order(source: str, order: Sequence[str]) -> int:
    """Where a problem's input comes in the command line: messages follow the files."""
    for index, label in enumerate(order):
        if source == label or source.startswith(f"{label} (document "):
            return index
    return len(order)


def _as_queue(raw: object) -> object:
    # The stack config may give a queue in short form ({name, spec}); mark it as a Queue.
    if isinstance(raw, Mapping) and "kind" not in raw:
        return {"apiVersion": QUEUE_API_VERSION, "kind": "Queue", **raw}
    return raw
