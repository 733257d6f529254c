"""Printing a plan: a table for people, JSON for programs, YAML manifests for kubectl.

All three are deterministic: the same plan gives the same bytes, whatever the key order
of the input. A Secret among the companions is never printed in clear: every output shows
its keys, each value replaced by ``<redacted>``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import yaml

from raygang.kube.quantity import format_resource_list
from raygang.kuberay.jobplan import JobPlan, PlannedResource
from raygang.plan import Companion, StackPlan, generate_name_prefix

__all__ = [
    "INDEX",
    "REDACTED",
    "OutDirError",
    "manifest_files",
    "plan_document",
    "redacted",
    "render_json",
    "render_table",
    "render_yaml",
    "stream",
    "write_json",
    "write_manifests",
]

_WAITS = {"queue": "waits for Open", "raycluster": "waits for ready"}

REDACTED = "<redacted>"


def redacted(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest to print: a core/v1 Secret's ``data``/``stringData`` values redacted."""
    out = dict(manifest)
    if out.get("apiVersion") == "v1" and out.get("kind") == "Secret":
        for key in ("data", "stringData"):
            if isinstance(out.get(key), Mapping):
                out[key] = dict.fromkeys(out[key], REDACTED)
    return out


def _resources_of(plan: JobPlan, companions: Sequence[Companion]) -> list[dict[str, Any]]:
    """The job's objects in creation order: its companions, then its own."""
    refs = [c.ref for c in companions]
    rows: list[dict[str, Any]] = [
        {
            "apiVersion": c.api_version,
            "kind": c.kind,
            "name": c.name,
            "namespace": c.namespace,
            "dependsOn": [],
            "companion": True,
        }
        for c in companions
    ]
    spaces = [c.ref for c in companions if c.is_namespace]
    for r in plan.resources:
        deps = list(r.depends_on) + _companion_deps(r.role, refs, spaces)
        rows.append(
            {
                "apiVersion": r.api_version,
                "kind": r.kind,
                "name": r.name,
                "namespace": r.namespace,
                "dependsOn": deps,
            }
        )
    return rows


def _companion_deps(role: str, refs: list[str], spaces: list[str]) -> list[str]:
    """What a job's object waits for among its companions (as the component wires it)."""
    if role == "raycluster":
        return refs
    return spaces if role == "record" else []


def _companion_document(companion: Companion) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "apiVersion": companion.api_version,
        "kind": companion.kind,
        "name": companion.name,
        "namespace": companion.namespace,
        "source": companion.source,
        "jobs": list(companion.jobs),
    }
    if companion.is_secret:
        manifest = companion.manifest
        doc["secretKeys"] = sorted(
            {*dict(manifest.get("data") or {}), *dict(manifest.get("stringData") or {})}
        )
    return doc


def _job_document(plan: JobPlan, companions: Sequence[Companion] = ()) -> dict[str, Any]:
    gang = plan.gang
    return {
        "name": plan.name,
        "namespace": plan.namespace,
        "generateName": generate_name_prefix(plan.item),
        "source": plan.item.source,
        "mode": plan.mode,
        "accounting": str(gang.accounting),
        "podGroup": {
            "name": plan.podgroup_name,
            "minMember": plan.declared_min_member,
            "minResources": plan.declared_min_resources,
            "queue": plan.queue,
            "priorityClassName": plan.priority_class,
        },
        "pods": [
            {
                "role": share.role,
                "group": share.group,
                "members": share.members,
                "reserved": share.reserved,
                "perPod": format_resource_list(share.per_pod),
            }
            for share in gang.shares
        ],
        "gang": {
            "minMember": gang.min_member,
            "minResources": gang.min_resources_strings(),
        },
        "kuberay": {
            "minMember": plan.kuberay_gang.min_member,
            "minResources": plan.kuberay_gang.min_resources_strings(),
        },
        "differences": list(gang.differences),
        "submissionId": plan.submission_id,
        "dashboardUrl": plan.dashboard_url,
        "lifecycle": plan.lifecycle.to_dict() if plan.lifecycle is not None else None,
        "preflight": plan.preflight.to_dict() if plan.preflight is not None else None,
        "resources": _resources_of(plan, companions),
    }


def plan_document(plan: StackPlan) -> dict[str, Any]:
    """The plan as the JSON document ``raygang plan --format json`` prints."""
    users: dict[str, list[str]] = {}
    for job in plan.jobs:
        if job.queue is not None:
            users.setdefault(job.queue, []).append(f"{job.namespace}/{job.name}")
    declared = {q.name for q in plan.queues}
    queues = [
        {"name": q.name, "declared": True, "jobs": users.get(q.name, [])} for q in plan.queues
    ]
    queues += [
        {"name": name, "declared": False, "jobs": jobs}
        for name, jobs in sorted(users.items())
        if name not in declared
    ]
    return {
        "jobs": [_job_document(j, plan.companions_of(j)) for j in plan.jobs],
        "queues": queues,
        "companions": [_companion_document(c) for c in plan.companions],
    }


def write_json(plan: StackPlan, out: TextIO | io.TextIOBase) -> None:
    """``raygang plan --format json``, written to ``out`` as it is produced.

    ``json.dump`` hands each piece to ``out`` as it goes; ``json.dumps`` with an indent
    would first join a list of every piece (hundreds of thousands for a large stack), and
    a returned string would hold the whole text besides the plan.
    """
    json.dump(plan_document(plan), out, indent=2)
    out.write("\n")


def render_json(plan: StackPlan) -> str:
    """``raygang plan --format json`` as a string (:func:`write_json`'s text)."""
    out = io.StringIO()
    write_json(plan, out)
    return out.getvalue()


def stream(plan: StackPlan) -> Iterator[PlannedResource]:
    """Every object once, in creation order: a job's companions come before its objects."""
    seen: set[str] = set()
    done: set[tuple[str, str, str, str]] = set()
    for job in plan.jobs:
        for companion in plan.companions_of(job):
            if companion.key not in done:
                done.add(companion.key)
                yield PlannedResource("companion", companion.manifest)
        for resource in job.resources:
            key = f"{resource.namespace}/{resource.ref}"
            if key not in seen:
                seen.add(key)
                yield resource
    for companion in plan.companions:
        if companion.key not in done:  # in a file whose jobs are all elsewhere: none
            done.add(companion.key)
            yield PlannedResource("companion", companion.manifest)
    for queue in plan.queues:
        if f"None/Queue/{queue.name}" not in seen:
            seen.add(f"None/Queue/{queue.name}")
            yield PlannedResource("queue", queue.manifest())


def _dump(manifest: object) -> str:
    # No line folding: a long submitter command stays one line, so diffs stay readable.
    return yaml.safe_dump(
        manifest, sort_keys=True, default_flow_style=False, allow_unicode=True, width=2**31 - 1
    )


def render_yaml(plan: StackPlan) -> str:
    """The manifests, one YAML document each, in creation order (no ownerReferences)."""
    return "".join(f"---\n{_dump(redacted(r.manifest))}" for r in stream(plan))


def manifest_files(plan: StackPlan, fmt: str = "yaml") -> list[tuple[str, str]]:
    """``(file name, text)`` per manifest, numbered in creation order (``yaml`` or ``json``)."""
    suffix = "json" if fmt == "json" else "yaml"
    files = []
    for index, resource in enumerate(stream(plan), start=1):
        ns = resource.namespace or "cluster"
        name = f"{index:03d}-{resource.kind.lower()}-{ns}-{resource.name}.{suffix}"
        manifest = redacted(resource.manifest)
        text = (
            json.dumps(manifest, indent=2, sort_keys=True) + "\n"
            if fmt == "json"
            else _dump(manifest)
        )
        files.append((name, text))
    return files


INDEX = "raygang.index"

_INDEX_HEADER = (
    "# Written by `raygang plan --out`. `--replace` removes exactly the files listed here,\n"
    "# and nothing else in this directory.\n"
)


class OutDirError(Exception):
    """``--out`` cannot be written as asked; the message says why and what would do."""


def _index(out: Path) -> set[str]:
    try:
        text = (out / INDEX).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return set()
    names = {line.strip() for line in text.splitlines()}
    # Only plain file names: an edited index cannot make --replace remove anything else.
    return {n for n in names if n and not n.startswith("#") and "/" not in n and n not in ".."}


def write_manifests(
    plan: StackPlan, out: Path, fmt: str = "yaml", *, replace: bool = False
) -> tuple[list[Path], list[str]]:
    """Write one file per manifest into ``out``, numbered in creation order.

    ``out`` is created when missing. An existing directory must be empty, unless
    ``replace``: then the files an earlier run listed in ``raygang.index`` are removed
    first, and nothing else; other files stay (and are named in the notes).

    Returns:
        The files written (the index last), and notes about files left alone.

    Raises:
        OutDirError: ``out`` is a file, is not empty (without ``replace``), holds a file of
            someone else's where a manifest would go, or cannot be written.
    """
    if out.exists() and not out.is_dir():
        raise OutDirError(f"{out}: is a file, not a directory (accepted: a directory for --out)")
    files = manifest_files(plan, fmt)
    notes: list[str] = []
    try:
        present = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
        ours = _index(out) if present else set()
        if present and not replace:
            listed = ", ".join(present[:5]) + (
                f" and {len(present) - 5} more" if len(present) > 5 else ""
            )
            earlier = " (an earlier raygang plan)" if ours else ""
            raise OutDirError(
                f"{out}: is not empty{earlier}: {listed} (accepted: an empty or new directory, "
                "or --replace to remove the files raygang wrote there before)"
            )
        foreign = [n for n in present if n not in ours and n != INDEX]
        clash = sorted({name for name, _ in files} & set(foreign))
        if clash:
            raise OutDirError(
                f"{out}: {', '.join(clash)} would be overwritten, but raygang did not write it "
                "(accepted: another directory, or remove it)"
            )
        if foreign:
            notes.append(
                f"{out}: kept {len(foreign)} entries raygang did not write: "
                + ", ".join(foreign[:5])
                + (" ..." if len(foreign) > 5 else "")
            )
        for name in sorted(ours & set(present)):
            target = out / name
            if target.is_file() or target.is_symlink():
                target.unlink()
        (out / INDEX).unlink(missing_ok=True)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name, text in files:
            path = out / name
            path.write_text(text, encoding="utf-8")
            written.append(path)
        index = out / INDEX
        index.write_text(_INDEX_HEADER + "".join(f"{n}\n" for n, _ in files), encoding="utf-8")
        written.append(index)
    except OSError as exc:
        where = exc.filename or out
        raise OutDirError(
            f"{where}: cannot be written: {exc.strerror or exc} (accepted: a writable directory)"
        ) from None
    return written, notes


def _table(rows: list[list[str]], indent: str) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        indent + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def _job_table(plan: JobPlan, companions: Sequence[Companion] = ()) -> list[str]:
    gang = plan.gang
    names = sorted({k for s in gang.shares for k in s.per_pod} | set(gang.min_resources))
    prefix = generate_name_prefix(plan.item)
    lines = [
        f"RayJob {plan.namespace}/{plan.name}  ({plan.mode}, accounting {gang.accounting})",
        f"  source        {plan.item.source}",
    ]
    if prefix is not None:
        lines.append(
            f"  name          from generateName {prefix!r} and a hash of the manifest "
            "(the same on every run)"
        )
    lines += [
        f"  PodGroup      {plan.podgroup_name}  queue {plan.queue or 'default (Volcano default)'}"
        + (" (created by this stack)" if plan.queue_declared else "")
        + (f"  priorityClass {plan.priority_class}" if plan.priority_class else ""),
    ]
    workers = sum(s.members for s in gang.shares if s.role == "worker")
    lines.append(
        f"  minMember     {gang.min_member}  (1 head + {workers} workers; "
        "the submitter is reserved but never counted)"
    )
    rows = [["role", "group", "members", "reserved", *names]]
    for share in gang.shares:
        per = format_resource_list(share.per_pod)
        rows.append(
            [share.role, share.group, str(share.members), str(share.reserved)]
            + [per.get(n, "-") for n in names]
        )
    lines.append("  pods (per pod)")
    lines += _table(rows, "    ")
    resources = ", ".join(f"{k} {v}" for k, v in gang.min_resources_strings().items()) or "{}"
    lines.append(f"  minResources  {resources}")
    declared = (plan.declared_min_member, plan.declared_min_resources)
    if declared != (gang.min_member, gang.min_resources_strings()):
        now = ", ".join(f"{k} {v}" for k, v in declared[1].items()) or "{}"
        lines.append(f"  declared now  minMember {declared[0]}, minResources {now} (lifecycle)")
    kuberay = plan.kuberay_gang
    if gang is not kuberay:
        if (
            kuberay.min_member == gang.min_member
            and kuberay.min_resources_strings() == gang.min_resources_strings()
        ):
            lines.append("  vs kuberay    identical")
        else:
            theirs = (
                ", ".join(f"{k} {v}" for k, v in kuberay.min_resources_strings().items()) or "{}"
            )
            lines.append(f"  vs kuberay    minMember {kuberay.min_member}, {theirs}")
            lines += [f"                - {d}" for d in gang.differences]
    if plan.preflight is not None:
        lines += plan.preflight.table_lines()
    if plan.lifecycle is not None:
        lines += [f"  {line}" for line in plan.lifecycle.table_lines()]
    lines.append(f"  submission    {plan.submission_id}")
    lines.append(f"  dashboard     {plan.dashboard_url}")
    lines.append("  create order")
    index = 0
    key = f"{plan.namespace}/{plan.name}"
    for index, companion in enumerate(companions, start=1):
        shared = [j for j in companion.jobs if j != key]
        note = f"companion from {companion.source}" + (
            f"; shared with {', '.join(shared)}" if shared else ""
        )
        if companion.is_secret:
            keys = _secret_keys(companion)
            note += f"; Secret keys {', '.join(keys) if keys else '(none)'}, values not shown"
        where = f"{companion.namespace}/" if companion.namespace != plan.namespace else ""
        lines.append(f"    {index}. {companion.kind}/{where}{companion.name}  ({note})")
    refs = [c.ref for c in companions]
    spaces = [c.ref for c in companions if c.is_namespace]
    for offset, resource in enumerate(plan.resources, start=index + 1):
        wait = _WAITS.get(resource.role, "")
        deps = list(resource.depends_on) + _companion_deps(resource.role, refs, spaces)
        after = f"after {', '.join(deps)}" if deps else ""
        note = "; ".join(x for x in (wait, after) if x)
        lines.append(f"    {offset}. {resource.ref}" + (f"  ({note})" if note else ""))
    return lines


def _secret_keys(companion: Companion) -> list[str]:
    manifest = companion.manifest
    return sorted({*dict(manifest.get("data") or {}), *dict(manifest.get("stringData") or {})})


def render_table(plan: StackPlan) -> str:
    """``raygang plan`` (the default format): a readable summary per job."""
    lines: list[str] = []
    for job in plan.jobs:
        lines += _job_table(job, plan.companions_of(job))
        lines.append("")
    if plan.queues:
        lines.append("Queues created by this stack: " + ", ".join(q.name for q in plan.queues))
    alone = [c for c in plan.companions if not c.jobs]
    if alone:
        lines.append(
            "Objects created by this stack for no RayJob (their files declare none): "
            + ", ".join(
                f"{c.kind}/{c.namespace + '/' if c.namespace else ''}{c.name}" for c in alone
            )
        )
    lines += [f"note: {i}" for i in plan.ignored]
    return "\n".join(lines).rstrip() + "\n"
