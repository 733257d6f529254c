"""The job record's history of submissions: per attempt, its ID, code package, time, result.

Issue 28: a job that runs repeatedly (a new code package, a ``raygang.dev/resubmit``) must
keep which version each attempt ran. KubeRay keeps only the current attempt in the RayJob's
status; raygang's record keeps every submission in annotation ``raygang.dev/history`` (JSON,
a list, oldest first), rebuilt on each run from the record the cluster reports, so
``raygang plan --cluster`` shows it from the facts. An entry is made the first time a
submission ID is declared (``submittedAt``: that run's clock) and completed when its result is
seen; a later run finds it and changes nothing, so a second ``pulumi preview`` is empty.
Written only for jobs with a code package or a resubmit counter: other records are as they
were.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from raygang.kuberay.manifests import RECORD_HISTORY

__all__ = ["MAX_HISTORY", "RECORD_HISTORY", "history_json", "next_history", "read_history"]

#: Entries kept (the oldest go first): the record's annotations hold 256 KiB in all.
MAX_HISTORY: Final = 100

_KEYS: Final = ("attempt", "submissionId", "codePackage", "submittedAt", "finishedAt", "result")


def read_history(text: str | None) -> list[dict[str, Any]]:
    """The entries of a record's history annotation; what is not one is left out."""
    if not text:
        return []
    try:
        data = json.loads(text)
    except ValueError:
        return []
    if not isinstance(data, list):
        return []
    return [
        {k: e[k] for k in _KEYS if k in e}
        for e in data
        if isinstance(e, Mapping) and isinstance(e.get("submissionId"), str)
    ]


def next_history(
    previous: Sequence[Mapping[str, Any]],
    *,
    attempt: int,
    submission_id: str,
    code: str | None,
    now: str,
    finished_at: str | None,
    result: str | None,
) -> tuple[dict[str, Any], ...]:
    """The history with this run's submission: added when new, its result filled when seen."""
    entries = [dict(e) for e in previous]
    current = next((e for e in entries if e["submissionId"] == submission_id), None)
    if current is None:
        current = {"attempt": attempt, "submissionId": submission_id, "submittedAt": now}
        if code is not None:
            current["codePackage"] = code
        entries.append(current)
    if result is not None and finished_at is not None:
        current["result"] = result
        current["finishedAt"] = finished_at
    return tuple(entries[-MAX_HISTORY:])


def history_json(entries: Sequence[Mapping[str, Any]]) -> str:
    """The annotation's value: one entry per line, keys sorted, so a diff shows the entry."""
    lines = [json.dumps(dict(e), sort_keys=True) for e in entries]
    return "[\n" + ",\n".join(lines) + "\n]\n"
