"""The enqueue checks: the overcommit and proportion ballots of the enqueue action's log
(:class:`raygang.volcano.decisions.EnqueueLog`) in our words, with the reservations that
block them and the fixes. The numbers and Volcano's events are the ballots'; nothing of
the votes is computed here."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from raygang.preflight.evaluation import Evaluation
from raygang.preflight.fixes import replica_fix
from raygang.volcano.api import (
    Res,
    asked_names,
    get,
    round_up,
    show,
    show_res,
    sub,
)
from raygang.volcano.decisions import OvercommitBallot, ProportionBallot


def factor_text(factor: Fraction) -> str:
    """The factor as people write it (``1.2``), or as a fraction when that would be inexact."""
    return str(float(factor)) if factor.denominator in (1, 2, 4, 5, 10) else f"{factor}"


def blockers_of(
    ev: Evaluation, names: Sequence[str], holders: Sequence[tuple[str, Res]]
) -> list[str]:
    """The reservations (``holders``: PodGroup key, what it holds) that hold the short
    resources, stale ones first."""
    assert ev.cluster is not None
    groups = {group.key: group for group in ev.cluster.groups}
    out = []
    for key, held in holders:
        if not any(get(held, n) > 0 for n in names):
            continue
        group = groups[key]
        stale = group.live_pods == 0
        note = (
            "Inqueue with no live pods, likely stale: delete it if its job is gone"
            if stale
            else group.phase
        )
        holds = show_res(held, [n for n in names if get(held, n) > 0])
        out.append((not stale, f"{group.key} ({note}; holds {holds})"))
    return [text for _, text in sorted(out)]


def queue_holders(ev: Evaluation, queue: str) -> list[tuple[str, Res]]:
    """The Inqueue and Running gangs of ``queue`` with their full minResources: what the
    proportion fix names (the queue's admitted gangs)."""
    assert ev.cluster is not None
    return [
        (group.key, group.min_res)
        for group in ev.cluster.groups
        if group.queue == queue
        and (group.inqueue or (group.running_reserved and group.min_raw is not None))
    ]


def check_enqueue(ev: Evaluation) -> None:
    log = ev.enqueued
    if log is None:
        where = "no cluster snapshot" if ev.cluster is None else "no Node objects"
        ev.add("overcommit", "skip", f"{where}: cluster usage unknown")
        ev.add("proportion", "skip", f"{where}: queue usage unknown")
        return
    admitted = log.admitted
    early = f"; {len(admitted)} Pending PodGroup(s) are admitted first" if admitted else ""
    overcommit = log.ballot("overcommit")
    assert isinstance(overcommit, OvercommitBallot)
    check_overcommit(ev, overcommit, early)
    proportion = log.ballot("proportion")
    assert proportion is None or isinstance(proportion, ProportionBallot)
    check_proportion(ev, proportion, early)


def check_overcommit(ev: Evaluation, ballot: OvercommitBallot, early: str) -> None:
    minimum, idle, held, short = ballot.ask, ballot.idle, ballot.held, ballot.short
    names = asked_names(minimum)
    factor = factor_text(ballot.factor)
    if ballot.permits:
        left = show_res(sub(idle, held), names)
        ev.add(
            "overcommit",
            "pass",
            f"needs {show_res(minimum, names)}; {factor} x allocatable - used - reserved "
            f"leaves {left}{early}",
        )
        return
    assert ballot.event is not None
    volcano = ballot.event
    deficit = {n: get(held, n) + get(minimum, n) - get(idle, n) for n in short}
    fixes = []
    blockers = blockers_of(ev, short, ballot.holders)
    if blockers:
        fixes.append("finish or delete " + ", ".join(blockers))
    shrink = replica_fix(ev, deficit)
    if shrink:
        fixes.append(shrink)
    for name in short:
        if get(ballot.allocatable, name) <= 0:
            fixes.append(f"add nodes that offer {name}")
        else:
            more = round_up(name, deficit[name] / ballot.factor)
            fixes.append(f"add nodes with {name} {show(name, more)} allocatable")
    # overcommit votes first: its event is the one the PodGroup shows, and proportion is
    # not asked, so its reason is never folded into the capability check's.
    ev.enqueue_event = ("overcommit", volcano)
    ev.add(
        "overcommit",
        "fail",
        f"{volcano}: needs {show_res(minimum, short)}; {factor} x allocatable "
        f"({show_res(ballot.budget, short)}) - used "
        f"({show_res(ballot.used, short)}) leaves {show_res(idle, short)}, and "
        f"admitted gangs reserve {show_res(held, short)}{early}",
        f"{volcano} -- enqueue admits a gang only while {factor} x the cluster's "
        f"allocatable, minus what pods use and what admitted gangs reserve "
        f"({show_res(held, short)}), still covers it; the PodGroup stays Pending. "
        f"Fix: {'; or '.join(fixes)}.",
    )


def check_proportion(ev: Evaluation, ballot: ProportionBallot | None, early: str) -> None:
    if ballot is None:
        ev.add("proportion", "skip", f"queue {ev.qname} unknown")
        return
    if not ballot.open:
        ev.add(
            "proportion",
            "fail",
            f"queue {ballot.queue} is not Open: proportion rejects the gang (no event)",
            same_cause="queue",
        )
        return
    minimum, real, committed, short = ballot.ask, ballot.real, ballot.committed, ballot.short
    names = asked_names(minimum)
    name = ballot.queue
    if ballot.permits:
        ev.add(
            "proportion",
            "pass",
            f"queue {name}: realCapability {show_res(real, names)}, committed "
            f"{show_res(committed, names)}, this gang {show_res(minimum, names)}{early}",
        )
        return
    assert ballot.event is not None and ev.queue is not None
    volcano = ballot.event
    if ev.enqueue_event is None:
        ev.enqueue_event = ("proportion", volcano)
    deficit = {n: get(committed, n) + get(minimum, n) - get(real, n) for n in short}
    fixes = []
    blockers = blockers_of(ev, short, queue_holders(ev, name))
    if blockers:
        fixes.append("finish or delete " + ", ".join(blockers))
    shrink = replica_fix(ev, deficit)
    if shrink:
        fixes.append(shrink)
    capability = ev.queue.capability
    if all(n in capability and get(real, n) >= capability[n] for n in short):
        fixes.append(
            " and ".join(
                f"raise queue {name} capability {n} from {show(n, capability[n])} "
                f"to {show(n, get(committed, n) + get(minimum, n))}"
                for n in short
            )
        )
    ev.add(
        "proportion",
        "fail",
        f"{volcano}: queue {name} realCapability {show_res(real, short)}, committed "
        f"{show_res(committed, short)}, this gang {show_res(minimum, short)}{early}",
        f"{volcano} -- queue {name} can hold {show_res(real, short)}, its admitted "
        f"gangs already hold {show_res(committed, short)} and this gang needs "
        f"{show_res(minimum, short)} more, so the PodGroup stays Pending. "
        f"Fix: {'; or '.join(fixes)}.",
        same_cause="capability",
    )
