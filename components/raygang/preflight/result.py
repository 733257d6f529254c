"""What the preflight says: one row per check, a verdict, and the node shapes it may use."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from raygang.kube.errors import Problem, SpecError
from raygang.kube.quantity import Quantity, QuantityError
from raygang.volcano.api import DEFAULT_MAX_PODS

__all__ = [
    "Check",
    "CheckStatus",
    "NodeShape",
    "Phase",
    "PreflightResult",
    "Verdict",
    "parse_node_shapes",
]


Verdict = Literal["admitted", "stuck", "unknown"]

# The PodGroup's phase as Volcano leaves it: Pending (enqueue refuses), Inqueue (admitted,
# holding its reservation, not placed), Running (the gang is placed), or Refused (the
# admission webhook refuses the PodGroup, which never exists).
Phase = Literal["Pending", "Inqueue", "Running", "Refused"]

CheckStatus = Literal["pass", "fail", "skip", "warn"]

# Checks that only advise: their status never changes the verdict.
ADVISORY_CHECKS = frozenset({"siblings"})


# --- Public types -------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Check:
    """One preflight check.

    Attributes:
        name: a stable identifier (``queue``, ``overcommit``, ``placement``...).
        status: ``pass``; ``fail`` (blocks the gang); ``skip`` (not enough facts to
            tell); ``warn`` (the outcome depends on something the model cannot know,
            or, for the advisory ``siblings`` check, on other jobs of the same stack).
        message: what was checked and what was found.
    """

    name: str
    status: CheckStatus
    message: str

    def to_dict(self) -> dict[str, str]:
        """``{"name", "status", "message"}``."""
        return {"name": self.name, "status": self.status, "message": self.message}


@dataclass(frozen=True, slots=True)
class PreflightResult:
    """Whether Volcano will admit and place the gang.

    Attributes:
        verdict: ``admitted`` (every check passed against the snapshot); ``stuck``
            (some check failed: the PodGroup stays Pending or Inqueue, or the job
            never starts); ``unknown`` (some check was skipped or is uncertain, and
            none failed). Never a guess: without a snapshot it is ``unknown``.
        reasons: one line per failed or uncertain check. The first is what Volcano shows
            on the PodGroup (``kubectl describe podgroup``), in its words, then our
            explanation and the smallest fix; the later ones are ours (``raygang ...:``),
            which Volcano does not report in that phase.
        checks: every check, in evaluation order.
        never_admitted: True when waiting cannot help (see the module docstring); the
            Pulumi preview fails on it.
        phase: the PodGroup phase Volcano leaves the gang in; None when it cannot be told.
        phase_reason: what keeps it there.
    """

    verdict: Verdict
    reasons: tuple[str, ...]
    checks: tuple[Check, ...]
    never_admitted: bool = False
    phase: Phase | None = None
    phase_reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``verdict``, ``neverAdmitted``, ``phase``, ``phaseReason``,
        ``reasons``, ``checks``."""
        return {
            "verdict": self.verdict,
            "neverAdmitted": self.never_admitted,
            "phase": self.phase,
            "phaseReason": self.phase_reason,
            "reasons": list(self.reasons),
            "checks": [c.to_dict() for c in self.checks],
        }

    def table_lines(self) -> list[str]:
        """A block for ``raygang plan``'s table, indented like the rest of a job."""
        headline = self.verdict + ("  (never admitted as declared)" if self.never_admitted else "")
        lines = [f"  preflight     {headline}"]
        if self.phase is not None or self.phase_reason:
            lines.append(f"  phase         {self.phase or 'unknown'}: {self.phase_reason}")
        lines += [f"                - {reason}" for reason in self.reasons]
        width = max((len(c.name) for c in self.checks), default=0)
        lines += [
            f"    {c.name.ljust(width)}  {c.status.ljust(4)}  {c.message}" for c in self.checks
        ]
        return lines

    def check(self, name: str) -> Check | None:
        """The check with that name, if it ran."""
        return next((c for c in self.checks if c.name == name), None)


@dataclass(frozen=True, slots=True)
class NodeShape:
    """A node the cluster has (or may scale to), declared for previews without a snapshot.

    Attributes:
        name: a label for messages (``gpu-a100``).
        allocatable: what one such node offers; ``pods`` defaults to 110.
        labels: node labels, for nodeSelector and node affinity.
        taints: ``{key, value, effect}`` maps.
    """

    name: str
    allocatable: Mapping[str, Quantity]
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Mapping[str, str], ...] = ()


def parse_node_shapes(raw: object, source: str = "raygang:nodeShapes") -> tuple[NodeShape, ...]:
    """Read declared node shapes (stack config ``raygang:nodeShapes``).

    The expected form is a list of ``{name, allocatable: {cpu: "32", memory: "128Gi",
    nvidia.com/gpu: "8"}, labels: {...}, taints: [{key, value, effect}]}``.

    Raises:
        SpecError: every malformed entry.
    """
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise SpecError.one(
            source, "<value>", f"is a {type(raw).__name__}", "a list of node shapes"
        )
    problems: list[Problem] = []
    shapes: list[NodeShape] = []
    for index, entry in enumerate(raw):
        where = f"[{index}]"
        if not isinstance(entry, Mapping):
            problems.append(Problem(source, where, f"is a {type(entry).__name__}", "a map"))
            continue
        name = entry.get("name", f"shape-{index}")
        allocatable_raw = entry.get("allocatable")
        if not isinstance(allocatable_raw, Mapping) or not allocatable_raw:
            problems.append(
                Problem(source, f"{where}.allocatable", "is required", 'a map such as {cpu: "32"}')
            )
            continue
        allocatable: dict[str, Quantity] = {}
        for key, value in allocatable_raw.items():
            try:
                allocatable[str(key)] = Quantity.parse(value)
            except QuantityError as exc:
                problems.append(Problem(source, f"{where}.allocatable[{key!r}]", str(exc)))
                continue
            if allocatable[str(key)] < Quantity(0):  # no node offers less than nothing
                problems.append(
                    Problem(
                        source,
                        f"{where}.allocatable[{key!r}]",
                        f"{value!r} is negative",
                        "a quantity of 0 or more, as a node reports it",
                    )
                )
        allocatable.setdefault("pods", Quantity(str(DEFAULT_MAX_PODS)))
        labels = entry.get("labels") or {}
        taints = entry.get("taints") or []
        if not isinstance(labels, Mapping):
            problems.append(Problem(source, f"{where}.labels", "is not a map", "label: value"))
            labels = {}
        if not isinstance(taints, list) or not all(isinstance(t, Mapping) for t in taints):
            problems.append(
                Problem(
                    source, f"{where}.taints", "is not a list of maps", "[{key, value, effect}]"
                )
            )
            taints = []
        shapes.append(
            NodeShape(
                str(name),
                allocatable,
                {str(k): str(v) for k, v in labels.items()},
                tuple({str(k): str(v) for k, v in t.items()} for t in taints),
            )
        )
    if problems:
        raise SpecError(problems)
    return tuple(shapes)
