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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from raygang.batch import batch_collection
from raygang.kube.errors import Problem, SpecError, describe_value
from raygang.kube.yamlfile import json_problems, yaml_documents
from raygang.rayjob.spec import RayJobInput
from raygang.rayjob.validate import load_rayjob
from raygang.volcano.queue import QUEUE_API_VERSION, QueueDecl, parse_queue

__all__ = ["Documents", "load_documents", "load_files"]


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
        not_json = json_problems(doc, source) if what != "other" else []
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
            found = yaml_documents(base / path if base else path, str(path), _ACCEPTED_KINDS)
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
