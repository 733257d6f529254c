"""Reading RayJobs and Queues from YAML files and from stack config.

A file may hold several documents: ``ray.io/v1`` RayJobs are jobs, Volcano Queues are
declared queues, and anything else (the ConfigMap KubeRay's samples ship beside a job, say)
is reported and ignored. Problems in every document are collected before raising.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from components.errors import Problem, SpecError
from components.queues import QUEUE_API_VERSION, QueueDecl, parse_queue
from components.spec import RayJobInput, parse_rayjob
from components.validate import check_rayjob

__all__ = ["Documents", "load_documents", "load_files"]


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


def _classify(doc: object, source: str) -> str:
    if not isinstance(doc, Mapping):
        return "other"
    kind, api = doc.get("kind"), doc.get("apiVersion")
    if kind == "RayJob":
        return "job"
    if kind == "Queue" and api == QUEUE_API_VERSION:
        return "queue"
    return "other"


def load_documents(docs: Iterable[tuple[str, object]]) -> Documents:
    """Parse and check documents given as ``(source, object)`` pairs.

    Raises:
        SpecError: every problem in every document.
    """
    jobs: list[RayJobInput] = []
    queues: dict[str, QueueDecl] = {}
    ignored: list[str] = []
    problems: list[Problem] = []
    for source, doc in docs:
        what = _classify(doc, source)
        try:
            if what == "job":
                assert isinstance(doc, Mapping)
                item = parse_rayjob(doc, source)
                found = check_rayjob(item)
                if found:
                    raise SpecError(found)
                jobs.append(item)
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
            elif isinstance(doc, Mapping):
                kind = doc.get("kind", "<no kind>")
                name = (doc.get("metadata") or {}).get("name", "<no name>") if isinstance(
                    doc.get("metadata"), Mapping
                ) else "<no name>"
                api = doc.get("apiVersion", "")
                ignored.append(f"{source}: {api} {kind} {name} ignored (not a RayJob or Queue)")
            elif doc is not None:
                raise SpecError.one(
                    source, "<document>", f"is a {type(doc).__name__}, not a Kubernetes object",
                    "a RayJob (apiVersion ray.io/v1) or a Volcano Queue",
                )
        except SpecError as exc:
            problems.extend(exc.problems)
    seen: dict[tuple[str, str], str] = {}
    for item in jobs:
        key = (item.namespace, item.name)
        if key in seen:
            problems.append(
                Problem(
                    item.source, "metadata.name",
                    f"RayJob {item.namespace}/{item.name} is also defined in {seen[key]}",
                    "one RayJob per namespace and name",
                )
            )
        seen.setdefault(key, item.source)
    if problems:
        raise SpecError(problems)
    return Documents(tuple(jobs), tuple(queues.values()), tuple(ignored))


def _yaml_documents(path: Path, label: str) -> list[tuple[str, object]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError.one(label, "<file>", f"cannot be read: {exc.strerror}", "a readable YAML file") from None
    except UnicodeDecodeError:
        raise SpecError.one(label, "<file>", "is not UTF-8 text", "a YAML file") from None
    try:
        docs = list(yaml.safe_load_all(text))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "<file>"
        reason = getattr(exc, "problem", None) or str(exc)
        raise SpecError.one(label, where, f"is not valid YAML: {reason}", "a YAML document stream") from None
    many = len([d for d in docs if d is not None]) > 1
    out = []
    for index, doc in enumerate(docs):
        out.append((f"{label} (document {index + 1})" if many else label, doc))
    return out


def load_files(
    paths: Sequence[Path],
    inline_jobs: Sequence[object] = (),
    inline_queues: Sequence[object] = (),
    base: Path | None = None,
) -> Documents:
    """Load YAML files and inline stack-config objects together.

    Args:
        paths: YAML files, read in order; relative paths are relative to ``base``.
        base: the project directory; sources are named relative to it, so messages and
            plans read the same on every checkout.
        inline_jobs: RayJob objects from ``raygang:jobs``.
        inline_queues: Queue objects from ``raygang:queues``.

    Raises:
        SpecError: every problem in every input.
    """
    docs: list[tuple[str, Any]] = []
    problems: list[Problem] = []
    for path in paths:
        try:
            docs.extend(_yaml_documents(base / path if base else path, str(path)))
        except SpecError as exc:
            problems.extend(exc.problems)
    docs += [(f"stack config raygang:queues[{i}]", _as_queue(q)) for i, q in enumerate(inline_queues)]
    docs += [(f"stack config raygang:jobs[{i}]", j) for i, j in enumerate(inline_jobs)]
    try:
        result = load_documents(docs)
    except SpecError as exc:
        problems.extend(exc.problems)
    if problems:
        raise SpecError(problems)
    return result


def _as_queue(raw: object) -> object:
    # The stack config may give a queue in short form ({name, spec}); mark it as a Queue.
    if isinstance(raw, Mapping) and "kind" not in raw:
        return {"apiVersion": QUEUE_API_VERSION, "kind": "Queue", **raw}
    return raw
