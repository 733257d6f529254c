"""Reading RayJobs, Queues and their companions from YAML files and from stack config.

A file may hold several documents: ``ray.io/v1`` RayJobs are jobs, Volcano Queues are
declared queues, and any other Kubernetes object (the ConfigMap KubeRay's samples mount in
the head, a ServiceAccount, Role and RoleBinding, a PVC, a custom resource) is a
*companion*: created unchanged beside the file's jobs, before their RayClusters. Problems
in every document are collected before raising.

Rules beyond "parse the YAML", each because the alternative loses or corrupts input:

* A file given explicitly (on the command line, or in ``raygang:manifests``) must declare
  at least one RayJob or Queue; a file of other kinds only would plan nothing, silently.
  A Queue-only file is fine: queues are often kept apart from the jobs that use them.
* A duplicated key in a YAML mapping is an error (PyYAML would keep the last value
  silently; kubectl refuses the file).
* YAML timestamps stay text (``jobId: 2024-01-01`` is the string kubectl would send),
  and every document must be representable as JSON, the form the API server receives:
  string keys, finite numbers, and a bounded size (YAML aliases can expand exponentially).
* ``kind: List`` (what ``kubectl get ... -o yaml`` prints) and any ``<Kind>List`` with
  ``items`` is read as its items. What the API server set on an object it returned
  (``status``, ``metadata.uid``, ``resourceVersion``, ``managedFields`` ...) is dropped,
  with a note: an object carrying them could not be created again.
* A RayJob with ``metadata.generateName`` and no name gets a deterministic name
  (:mod:`raygang.kube.generatename`).
* A companion belongs to its file: it is created once, every RayJob of the file depends on
  it, and without a namespace it goes to the namespace of the file's RayJobs (``default``
  when they have none, as kubectl would put both). A file whose RayJobs are in several
  namespaces must name the companion's namespace. The same object declared identically in
  two files is created once, for the jobs of both; declared differently, it is an error.
* Other KubeRay kinds (RayCluster, RayService, RayCronJob) are refused: raygang
  gang-schedules RayJobs only, and creating them unscheduled would be a silent surprise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from raygang.kube.errors import Problem, SpecError, describe_value
from raygang.kube.generatename import with_generated_name
from raygang.kube.yamlfile import json_problems, yaml_documents
from raygang.plan import CLUSTER_SCOPED_KINDS, Companion
from raygang.rayjob.spec import RayJobInput
from raygang.rayjob.validate import MAX_JOB_NAME, load_rayjob
from raygang.volcano.queue import QUEUE_API_VERSION, QueueDecl, parse_queue

__all__ = ["Documents", "load_documents", "load_files", "load_rayjob_document"]


_ACCEPTED_KINDS = "a RayJob (apiVersion: ray.io/v1) or a Volcano Queue (" + QUEUE_API_VERSION + ")"


@dataclass(frozen=True)
class Documents:
    """What a set of inputs declares.

    Attributes:
        jobs: RayJobs in input order.
        queues: declared Queues, one per name.
        ignored: notes on what was read but changed or not planned (server-set fields
            dropped, say).
        companions: the other objects, each with the jobs that depend on it.
    """

    jobs: tuple[RayJobInput, ...] = ()
    queues: tuple[QueueDecl, ...] = ()
    ignored: tuple[str, ...] = field(default=())
    companions: tuple[Companion, ...] = field(default=())

    def companions_of(self, item: RayJobInput) -> tuple[Companion, ...]:
        """The companions a job depends on (those of its file), in input order."""
        key = f"{item.namespace}/{item.name}"
        return tuple(c for c in self.companions if key in c.jobs)


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
    if isinstance(api, str) and api.startswith("ray.io/"):
        return "ray-other"
    return "other"


# --- List files -------------------------------------------------------------------------
def _is_list(doc: object) -> bool:
    if not isinstance(doc, Mapping):
        return False
    kind = doc.get("kind")
    return isinstance(kind, str) and kind.endswith("List") and isinstance(doc.get("items"), list)


def _item_source(source: str, index: int) -> str:
    # "f.yaml" -> "f.yaml (items[0])"; "f.yaml (document 2)" -> "f.yaml (document 2, items[0])"
    if source.endswith(")") and " (document " in source:
        return f"{source[:-1]}, items[{index}])"
    return f"{source} (items[{index}])"


def _expand_lists(
    entries: Iterable[tuple[str, str, object]],
) -> Iterator[tuple[str, str, object]]:
    for source, group, doc in entries:
        if _is_list(doc):
            assert isinstance(doc, Mapping)
            for index, item in enumerate(doc["items"]):
                yield _item_source(source, index), group, item
        else:
            yield source, group, doc


# What the API server sets on the objects it returns; none of it may be sent on a create.
_SERVER_METADATA = (
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
)
_LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def _without_server_fields(doc: object) -> tuple[object, list[str]]:
    """The object without what the API server set, and the fields dropped."""
    if not isinstance(doc, Mapping):
        return doc, []
    dropped = []
    out = dict(doc)
    if "status" in out:
        del out["status"]
        dropped.append("status")
    meta = out.get("metadata")
    if isinstance(meta, Mapping):
        new_meta = dict(meta)
        for key in _SERVER_METADATA:
            if key in new_meta:
                del new_meta[key]
                dropped.append(f"metadata.{key}")
        annotations = new_meta.get("annotations")
        if isinstance(annotations, Mapping) and _LAST_APPLIED in annotations:
            new_meta["annotations"] = {k: v for k, v in annotations.items() if k != _LAST_APPLIED}
            dropped.append(f"metadata.annotations[{_LAST_APPLIED!r}]")
        out["metadata"] = new_meta
    return (out, dropped) if dropped else (doc, [])


# --- RayJobs ----------------------------------------------------------------------------
def load_rayjob_document(doc: object, source: str) -> RayJobInput:
    """Check one RayJob as the loader does: a name from ``generateName`` when it has none.

    Raises:
        SpecError: every problem of the document.
    """
    named = with_generated_name(doc, MAX_JOB_NAME)
    if named is doc:
        return load_rayjob(doc, source)
    assert isinstance(named, Mapping)
    try:
        return load_rayjob(named, source)
    except SpecError as exc:
        derived = named["metadata"]["name"]
        raise SpecError(
            [
                Problem(
                    p.source,
                    "metadata.generateName",
                    f"gives the name {derived!r}, which "
                    + p.message.removeprefix(f"{derived!r} ").removeprefix(f"{derived} "),
                    p.accepted,
                )
                if p.path == "metadata.name"
                else p
                for p in exc.problems
            ]
        ) from None


# --- companions -------------------------------------------------------------------------
def _companion_problems(doc: Mapping[str, Any], source: str) -> list[Problem]:
    problems = []
    api = doc.get("apiVersion")
    if not isinstance(api, str) or not api:
        problems.append(
            Problem(source, "apiVersion", "is required but missing", "e.g. v1 or apps/v1")
        )
    if not isinstance(doc.get("kind"), str):
        problems.append(
            Problem(source, "kind", f"{describe_value(doc.get('kind'))} is not a kind", "a string")
        )
    meta = doc.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    if not isinstance(name, str) or not name:
        generate = meta.get("generateName") if isinstance(meta, Mapping) else None
        why = (
            f"is missing; metadata.generateName ({generate!r}) is accepted on RayJobs only, "
            "since nothing could refer to a companion by a name made at creation"
            if generate
            else "is required but missing"
        )
        problems.append(Problem(source, "metadata.name", why, "the object's name"))
    namespace = meta.get("namespace") if isinstance(meta, Mapping) else None
    if namespace is not None and (not isinstance(namespace, str) or not namespace):
        problems.append(
            Problem(
                source,
                "metadata.namespace",
                f"{describe_value(namespace)} is not a namespace",
                "a namespace name, or none for the namespace of the file's RayJobs",
            )
        )
    return problems


def _group_of(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def _companions(
    found: Sequence[tuple[str, str, Mapping[str, Any]]],
    jobs_by_group: Mapping[str, Sequence[RayJobInput]],
) -> tuple[list[Companion], list[Problem]]:
    """Companions with their namespace and jobs; one per object, whichever files declare it."""
    problems: list[Problem] = []
    by_key: dict[tuple[str, str, str, str], Companion] = {}
    for source, group, doc in found:
        if group.startswith("stack config"):
            problems.append(
                Problem(
                    source,
                    "kind",
                    f"{doc['kind']} is not a RayJob: raygang:jobs holds RayJobs only",
                    "a RayJob here; other objects in a file named by raygang:manifests",
                )
            )
            continue
        jobs = jobs_by_group.get(group, ())
        meta = dict(doc["metadata"])
        cluster_scoped = (_group_of(doc["apiVersion"]), doc["kind"]) in CLUSTER_SCOPED_KINDS
        if "namespace" not in meta and not cluster_scoped:
            spaces = sorted({j.namespace for j in jobs}) or ["default"]
            if len(spaces) > 1:
                problems.append(
                    Problem(
                        source,
                        "metadata.namespace",
                        "is missing, and the RayJobs of this file are in several namespaces ("
                        + ", ".join(spaces)
                        + ")",
                        "the namespace of the RayJobs that use it",
                    )
                )
                continue
            meta["namespace"] = spaces[0]
        companion = Companion(
            source, {**doc, "metadata": meta}, tuple(f"{j.namespace}/{j.name}" for j in jobs)
        )
        known = by_key.get(companion.key)
        if known is None:
            by_key[companion.key] = companion
        elif _canonical(known.manifest) != _canonical(companion.manifest):
            where = f"{companion.namespace}/" if companion.namespace else ""
            problems.append(
                Problem(
                    source,
                    "metadata.name",
                    f"{companion.kind} {where}{companion.name} is also declared differently in "
                    f"{known.source}; one of them would overwrite the other",
                    "one declaration per object, or another name",
                )
            )
        else:
            jobs_of_both = tuple(dict.fromkeys((*known.jobs, *companion.jobs)))
            by_key[companion.key] = Companion(known.source, known.manifest, jobs_of_both)
    return list(by_key.values()), problems


def _canonical(manifest: Mapping[str, Any]) -> str:
    return json.dumps(manifest, sort_keys=True, separators=(",", ":"))


def _load_one(
    what: str,
    doc: object,
    source: str,
    jobs: list[RayJobInput],
    queues: dict[str, QueueDecl],
) -> None:
    """Parse one job or queue document into ``jobs``/``queues``; raise its problems."""
    if what == "job":
        jobs.append(load_rayjob_document(doc, source))
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
    elif what == "ray-other":
        assert isinstance(doc, Mapping)
        raise SpecError.one(
            source,
            "kind",
            f"{doc['kind']} ({doc.get('apiVersion')}) is not handled: raygang gang-schedules "
            "RayJobs only, and would not create it",
            "a RayJob; apply a RayCluster, RayService or RayCronJob with kubectl and KubeRay, "
            "outside raygang",
        )
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
    return _load_documents((source, _file_of(source), doc) for source, doc in docs)


_DOCUMENT_SUFFIX = re.compile(r" \((document \d+(, items\[\d+\])?|items\[\d+\])\)$")


def _file_of(source: str) -> str:
    """The file a document's source names: companions belong to the jobs of their file."""
    return _DOCUMENT_SUFFIX.sub("", source)


def _load_documents(entries: Iterable[tuple[str, str, object]]) -> Documents:
    jobs: list[RayJobInput] = []
    groups: dict[str, list[RayJobInput]] = {}
    queues: dict[str, QueueDecl] = {}
    others: list[tuple[str, str, Mapping[str, Any]]] = []
    ignored: list[str] = []
    problems: list[Problem] = []
    for source, group, raw in _expand_lists(entries):
        doc, dropped = _without_server_fields(raw)
        if dropped:
            ignored.append(
                f"{source}: dropped {', '.join(dropped)} (set by the API server; an object "
                "carrying them cannot be created)"
            )
        what = _classify(doc)
        not_json = json_problems(doc, source)
        if not_json:
            # Checking a document the API server could not even receive would report the
            # same values again under other names; these come first.
            problems.extend(not_json)
            continue
        if what == "other":
            assert isinstance(doc, Mapping)
            found = _companion_problems(doc, source)
            if found:
                problems.extend(found)
            else:
                others.append((source, group, doc))
            continue
        try:
            before = len(jobs)
            _load_one(what, doc, source, jobs, queues)
            if len(jobs) > before:
                groups.setdefault(group, []).append(jobs[-1])
        except SpecError as exc:
            problems.extend(exc.problems)
    companions, found = _companions(others, groups)
    problems.extend(found)
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
    return Documents(tuple(jobs), tuple(queues.values()), tuple(ignored), tuple(companions))


def _declares_something(docs: Sequence[tuple[str, object]]) -> bool:
    entries = _expand_lists((source, source, doc) for source, doc in docs)
    return any(
        _classify(doc) in ("job", "queue", "misspelt", "no-kind", "ray-other")
        for _, _, doc in entries
    )


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
    docs: list[tuple[str, str, Any]] = []
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
        docs.extend((source, str(path), doc) for source, doc in found)
    docs += [
        (label, label, _as_queue(q))
        for i, q in enumerate(inline_queues)
        if (label := f"stack config raygang:queues[{i}]")
    ]
    docs += [
        (label, label, j)
        for i, j in enumerate(inline_jobs)
        if (label := f"stack config raygang:jobs[{i}]")
    ]
    try:
        result = _load_documents(docs)
    except SpecError as exc:
        problems.extend(exc.problems)
    if problems:
        raise SpecError(sorted(problems, key=lambda p: _input_order(p.source, order)))
    return result


def _input_order(source: str, order: Sequence[str]) -> int:
    """Where a problem's input comes in the command line: messages follow the files."""
    for index, label in enumerate(order):
        if source == label or source.startswith(f"{label} ("):
            return index
    return len(order)


def _as_queue(raw: object) -> object:
    # The stack config may give a queue in short form ({name, spec}); mark it as a Queue.
    if isinstance(raw, Mapping) and "kind" not in raw:
        return {"apiVersion": QUEUE_API_VERSION, "kind": "Queue", **raw}
    return raw
