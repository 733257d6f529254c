"""Loading YAML files and inline stack-config objects together.

A file given explicitly (on the command line, or in ``raygang:manifests``) must declare at
least one RayJob or Queue; a file of other kinds only would plan nothing, silently. A
Queue-only file is fine: queues are often kept apart from the jobs that use them. Stack
config may give a queue in short form (``{name, spec}``). Problems are reported in the
order of the inputs, files first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from raygang.kube.errors import Problem, SpecError
from raygang.kube.yamlfile import yaml_documents
from raygang.loader.classify import ACCEPTED_KINDS, classify
from raygang.loader.codepackages import pack_jobs
from raygang.loader.documents import Documents, load_entries
from raygang.loader.lists import expand_lists
from raygang.volcano.queue import QUEUE_API_VERSION

__all__ = ["load_files"]


def _declares_something(docs: Sequence[tuple[str, object]]) -> bool:
    entries = expand_lists((source, source, doc) for source, doc in docs)
    return any(
        classify(doc) in ("job", "cluster", "queue", "misspelt", "no-kind", "ray-other")
        for _, _, doc in entries
    )


def load_files(
    paths: Sequence[Path],
    inline_jobs: Sequence[object] = (),
    inline_queues: Sequence[object] = (),
    base: Path | None = None,
    cluster_scoped: Collection[tuple[str, str]] = (),
) -> Documents:
    """Load YAML files and inline stack-config objects together.

    Args:
        paths: YAML files, read in order; relative paths are relative to ``base``.
        inline_jobs: RayJob objects from ``raygang:jobs``.
        inline_queues: Queue objects from ``raygang:queues``.
        base: the project directory; sources are named relative to it, so messages and
            plans read the same on every checkout.
        cluster_scoped: (API group, kind) pairs the cluster reports cluster-scoped
            (:func:`raygang.live_cluster_scoped`), beyond the documented list: companions of
            those kinds get no namespace.

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
            found = yaml_documents(base / path if base else path, str(path), ACCEPTED_KINDS)
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
                    "a file with at least " + ACCEPTED_KINDS,
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
        result = load_entries(docs, cluster_scoped)
    except SpecError as exc:
        problems.extend(exc.problems)
    else:
        # A job's code package, from its raygang.dev/working-dir (relative to its file).
        packages, refused = pack_jobs(result.jobs, base)
        problems.extend(refused)
        if packages:
            result = dataclasses.replace(result, packages=packages)
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
