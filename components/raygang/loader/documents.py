"""Documents in, jobs, queues, notes and companions out: the loader's main pass.

Each document is read as kubectl would (lists as their items, server-set fields dropped
with a note), checked to be representable as JSON, the form the API server receives, and
then classified and parsed; problems in every document are collected before raising.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from raygang.codepkg import CodePackage
from raygang.kube.errors import Problem, SpecError
from raygang.kube.yamlfile import json_problems
from raygang.loader.classify import classify, load_one
from raygang.loader.companions import companion_problems, companions
from raygang.loader.duplicates import duplicate_jobs
from raygang.loader.lists import expand_lists
from raygang.loader.rayclusters import cluster_clashes, load_raycluster_document
from raygang.loader.server_fields import without_server_fields
from raygang.plan import Companion, companions_for
from raygang.rayjob.raycluster import RayClusterInput
from raygang.rayjob.spec import RayJobInput
from raygang.volcano.queue import QueueDecl

__all__ = ["Documents", "file_of", "load_documents", "load_entries"]


@dataclass(frozen=True)
class Documents:
    """What a set of inputs declares.

    Attributes:
        jobs: RayJobs in input order.
        queues: declared Queues, one per name.
        ignored: notes on what was read but changed or not planned (server-set fields
            dropped, say).
        companions: the other objects, each with the RayJobs and RayClusters of their own
            that depend on it.
        packages: the code packages of the jobs that name a local working directory
            (``raygang.dev/working-dir``), by ``namespace/name``; only
            :func:`~raygang.loader.files.load_files` packs them (it knows the files).
        clusters: RayClusters of their own (no RayJob's), in input order.
    """

    jobs: tuple[RayJobInput, ...] = ()
    queues: tuple[QueueDecl, ...] = ()
    ignored: tuple[str, ...] = field(default=())
    companions: tuple[Companion, ...] = field(default=())
    packages: Mapping[str, CodePackage] = field(default_factory=dict)
    clusters: tuple[RayClusterInput, ...] = field(default=())

    def companions_of(self, item: RayJobInput | RayClusterInput) -> tuple[Companion, ...]:
        """The companions a job or a RayCluster of its own depends on (those of its file), in
        input order."""
        return companions_for(self.companions, item.namespace, item.name)


def load_documents(docs: Iterable[tuple[str, object]]) -> Documents:
    """Parse and check documents given as ``(source, object)`` pairs.

    Args:
        docs: each document with the source that names it in messages.

    Returns:
        The jobs and queues, and a note per document of another kind.

    Raises:
        SpecError: every problem in every document.
    """
    return load_entries((source, file_of(source), doc) for source, doc in docs)


_ITEMS = r"items\[\d+\](\.items\[\d+\])*"
_DOCUMENT_SUFFIX = re.compile(rf" \((document \d+(, {_ITEMS})?|{_ITEMS})\)$")


def file_of(source: str) -> str:
    """The file a document's source names: companions belong to the jobs of their file."""
    return _DOCUMENT_SUFFIX.sub("", source)


def load_entries(
    entries: Iterable[tuple[str, str, object]], cluster_scoped: Collection[tuple[str, str]] = ()
) -> Documents:
    """Parse and check ``(source, group, object)`` entries; a group is the input's file.

    ``cluster_scoped``: (group, kind) pairs the cluster's discovery reports cluster-scoped,
    beyond the documented list; their companions get no namespace.
    """
    jobs: list[RayJobInput] = []
    clusters: list[RayClusterInput] = []
    # Each file's RayJobs and RayClusters of their own, in input order: the companions of the
    # file take their namespace and are created before every one of them.
    groups: dict[str, list[RayJobInput | RayClusterInput]] = {}
    queues: dict[str, QueueDecl] = {}
    others: list[tuple[str, str, Mapping[str, Any]]] = []
    ignored: list[str] = []
    problems: list[Problem] = []
    for source, group, raw in expand_lists(entries):
        doc, dropped = without_server_fields(raw)
        if dropped:
            ignored.append(
                f"{source}: dropped {', '.join(dropped)} (set by the API server; an object "
                "carrying them cannot be created)"
            )
        what = classify(doc)
        not_json = json_problems(doc, source)
        if not_json:
            # Checking a document the API server could not even receive would report the
            # same values again under other names; these come first.
            problems.extend(not_json)
            continue
        if what == "other":
            assert isinstance(doc, Mapping)
            found = companion_problems(doc, source)
            if found:
                problems.extend(found)
            else:
                others.append((source, group, doc))
            continue
        if what == "cluster":
            try:
                clusters.append(load_raycluster_document(doc, source))
                groups.setdefault(group, []).append(clusters[-1])
            except SpecError as exc:
                problems.extend(exc.problems)
            continue
        try:
            before = len(jobs)
            load_one(what, doc, source, jobs, queues)
            if len(jobs) > before:
                groups.setdefault(group, []).append(jobs[-1])
        except SpecError as exc:
            problems.extend(exc.problems)
    companions_found, found = companions(others, groups, cluster_scoped)
    problems.extend(found)
    problems.extend(duplicate_jobs(jobs))
    problems.extend(cluster_clashes(jobs, clusters))
    if problems:
        raise SpecError(problems)
    return Documents(
        tuple(jobs),
        tuple(queues.values()),
        tuple(ignored),
        tuple(companions_found),
        clusters=tuple(clusters),
    )
