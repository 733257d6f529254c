"""Where a ``pulumi up`` spends its time, from the engine's own event log.

``pulumi up --event-log FILE`` writes one JSON event a line (``pkg/backend/display``'s
engine events): ``resourcePreEvent`` when the engine starts a step on a resource and
``resOutputsEvent`` when the step is done, each with a ``timestamp`` in whole seconds. A
create step of a RayCluster lasts until its ``pulumi.com/waitFor`` condition holds, so the
time between the two events is the resource's create time, await included. Per kind this
gives how long each step took and how many steps of it ran at once, which says whether the
run was waiting on the cluster or on the engine's ``--parallel`` slots.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

__all__ = ["KindTimes", "Timeline", "read_timeline"]


@dataclass(frozen=True)
class KindTimes:
    """The create steps of one resource type.

    Attributes:
        kind: the Pulumi type (``kubernetes:ray.io/v1:RayCluster``).
        count: steps.
        median_seconds: the median step time (start to outputs).
        max_seconds: the longest step.
        first_start: seconds from the first event to the first step's start.
        last_end: seconds from the first event to the last step's end.
    """

    kind: str
    count: int
    median_seconds: float
    max_seconds: float
    first_start: float
    last_end: float


@dataclass(frozen=True)
class Timeline:
    """A run's steps by kind, and how many steps were in flight at most."""

    kinds: tuple[KindTimes, ...]
    max_in_flight: int
    seconds: float


def read_timeline(path: Path) -> Timeline:
    """The create/update steps of an event log, by resource type."""
    starts: dict[str, tuple[str, int]] = {}
    steps: list[tuple[str, int, int]] = []  # (type, start, end)
    first: int | None = None
    last = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        event = json.loads(line)
        stamp = int(event.get("timestamp", 0))
        first = stamp if first is None else min(first, stamp)
        last = max(last, stamp)
        for name, done in (("resourcePreEvent", False), ("resOutputsEvent", True)):
            meta = (event.get(name) or {}).get("metadata")
            if not meta or meta.get("op") not in ("create", "update", "replace"):
                continue
            urn, kind = meta.get("urn", ""), meta.get("type", "")
            if kind.startswith("pulumi:") or kind.startswith("raygang:"):
                continue  # the stack, providers and components: no work of their own
            if not done:
                starts[urn] = (kind, stamp)
            elif urn in starts:
                kind, start = starts.pop(urn)
                steps.append((kind, start, stamp))
    origin = first or 0
    by_kind: dict[str, list[tuple[int, int]]] = {}
    for kind, start, end in steps:
        by_kind.setdefault(kind, []).append((start, end))
    kinds = []
    for kind, spans in sorted(by_kind.items(), key=lambda item: min(s for s, _ in item[1])):
        times = sorted(end - start for start, end in spans)
        kinds.append(
            KindTimes(
                kind,
                len(spans),
                float(times[len(times) // 2]),
                float(times[-1]),
                float(min(s for s, _ in spans) - origin),
                float(max(e for _, e in spans) - origin),
            )
        )
    edges = sorted([(s, 1) for _, s, _ in steps] + [(e, -1) for _, _, e in steps])
    in_flight = peak = 0
    for _, delta in edges:
        in_flight += delta
        peak = max(peak, in_flight)
    return Timeline(tuple(kinds), peak, float(last - origin))
