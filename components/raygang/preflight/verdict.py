"""From the checks to what the preflight says: the verdict, the PodGroup phase Volcano
leaves the gang in, and the reasons in the order Volcano shows them.

The first reason is what ``kubectl describe podgroup`` shows, in Volcano's words (the
admission webhook's denial, the enqueue voter's event, or the gang condition allocate
writes); every later reason is raygang's own analysis and says so, because Volcano does
not report it (yet): proportion is not asked once overcommit rejects
(``framework/session_plugins.go`` ``JobEnqueueable``), and allocate does not run for a
Pending PodGroup (``actions/allocate/allocate.go``), so no ``Origin reason`` is written.
"""

from __future__ import annotations

from raygang.preflight.evaluation import Evaluation, Reason
from raygang.preflight.result import ADVISORY_CHECKS, Phase, PreflightResult, Verdict

ORIGIN = ". Origin reason is "
GANG = "tasks in gang unschedulable"

# Why Volcano does not show a later reason, per phase and the reason's stage.
_NOT_SHOWN = {
    ("Refused", "enqueue"): "once the PodGroup is accepted",
    ("Refused", "allocate"): "once the PodGroup is accepted and admitted",
    ("Refused", "running"): "once the gang is placed",
    ("Pending", "enqueue"): "not shown by Volcano: proportion is not asked once overcommit rejects",
    ("Pending", "allocate"): "once admitted: allocate does not run for a Pending PodGroup",
    ("Pending", "running"): "once the gang is placed",
    ("Inqueue", "allocate"): "also",
    ("Inqueue", "running"): "once the gang is placed",
}


def verdict_of(ev: Evaluation) -> Verdict:
    gating = [c for c in ev.checks if c.name not in ADVISORY_CHECKS]
    if any(c.status == "fail" for c in gating):
        return "stuck"
    if any(c.status in ("skip", "warn") for c in gating):
        return "unknown"
    return "admitted"


def status(ev: Evaluation, name: str) -> str | None:
    found = next((c for c in ev.checks if c.name == name), None)
    return found.status if found is not None else None


def phase_of(ev: Evaluation) -> tuple[Phase | None, str]:
    """The PodGroup phase Volcano leaves the gang in, and what keeps it there."""
    if "queue" in ev.failed:
        return "Refused", (
            f"the PodGroup webhook refuses ray-{ev.plan.name}-pg: queue {ev.qname} "
            + ("does not exist" if ev.queue is None else "is not Open")
            + ", so the PodGroup is never created"
        )
    if ev.enqueue_event is not None:
        voter, event = ev.enqueue_event
        return "Pending", f"enqueue refuses it ({voter}: {event})"
    if ev.failed & {"capability", "proportion"}:
        return "Pending", "enqueue refuses it (proportion: the queue can never hold minResources)"
    if status(ev, "overcommit") != "pass" or status(ev, "proportion") != "pass":
        return None, "without a snapshot's nodes the enqueue vote cannot be replayed"
    held = "admitted (Inqueue), holding its reservation, but "
    if "gang" in ev.failed:
        return "Inqueue", held + "the gang has fewer pods than minMember, so allocate skips it"
    if ev.failed & {"fit", "fair-share", "placement"}:
        why = (
            "its queue's deserved share runs out before the gang is complete"
            if "fair-share" in ev.failed and "placement" not in ev.failed
            else "allocate cannot place the gang"
        )
        return "Inqueue", held + why
    placement = status(ev, "placement")
    if placement == "pass":
        submitter = status(ev, "submitter")
        tail = "; the submitter pod fits no node" if submitter == "fail" else ""
        return "Running", f"the gang is placed (minMember {ev.plan.gang.min_member}){tail}"
    if placement == "fail":
        # The gang is placed; pods above minReplicas are not.
        return "Running", "the gang is placed, but pods above minReplicas stay Pending"
    if placement == "warn":
        return None, "Inqueue or Running: placement depends on Volcano's pod order"
    return None, "admitted (Inqueue); where the pods land is unknown"


def first_words(ev: Evaluation, phase: Phase | None) -> tuple[Reason | None, str]:
    """The reason Volcano shows first and its words, for the phase."""
    if phase == "Refused":
        return next((r for r in ev.reasons if r.check == "queue"), None), ""
    if phase == "Pending" and ev.enqueue_event is not None:
        voter, event = ev.enqueue_event
        # overcommit's own reason; proportion's, or the capability check's when it said
        # the same (the queue can never hold the gang).
        checks = ("overcommit",) if voter == "overcommit" else ("proportion", "capability")
        found = next((r for r in ev.reasons if r.check in checks), None)
        return found, event
    if phase == "Inqueue" and ev.condition is not None:
        found = next((r for r in ev.reasons if r.stage == "allocate"), None)
        return found, ev.condition
    return None, ""


def later(reason: Reason, phase: Phase | None) -> str:
    """A reason Volcano does not show now, marked as ours."""
    volcano = reason.volcano
    if phase in ("Pending", "Refused") and GANG in volcano:
        # Allocate has not run: no gang condition of its own; the fit errors it would
        # record are ours to predict.
        volcano = volcano.split(ORIGIN, 1)[1].split(": ", 1)[1] if ORIGIN in volcano else ""
    note = _NOT_SHOWN.get((phase, reason.stage)) if phase is not None else None
    return (f"raygang ({note}): " if note else "raygang: ") + joined(volcano, reason.text)


def joined(volcano: str, text: str) -> str:
    return f"{volcano} -- {text}" if volcano and text else volcano or text


def result_of(ev: Evaluation) -> PreflightResult:
    verdict = verdict_of(ev)
    phase, why = phase_of(ev)
    first, words = first_words(ev, phase)
    reasons: list[str] = []
    if first is not None:
        reasons.append(joined(words or first.volcano, first.text))
    elif words:
        reasons.append(words)
    for reason in ev.reasons:
        if reason is first:
            continue
        if not reasons:
            # Nothing Volcano shows leads (no snapshot, say): the first keeps its words.
            reasons.append(joined(reason.volcano, reason.text))
        else:
            reasons.append(later(reason, phase))
    return PreflightResult(verdict, tuple(reasons), tuple(ev.checks), ev.never, phase, why)
