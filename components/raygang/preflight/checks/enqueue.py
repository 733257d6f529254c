"""The enqueue checks: the overcommit and proportion votes (:mod:`raygang.volcano.actions.enqueue`)
in our words, with the reservations that block them and the fixes."""

from __future__ import annotations

from collections.abc import Sequence

from raygang.preflight.evaluation import Evaluation
from raygang.preflight.fixes import replica_fix
from raygang.volcano.api import (
    add_res,
    asked_names,
    get,
    inqueue_resource,
    insufficient,
    round_up,
    scale,
    show,
    show_res,
    sub,
)
from raygang.volcano.framework import Admitted, reserved_by
from raygang.volcano.plugins.overcommit import factor_text, overcommit_held, overcommit_idle
from raygang.volcano.plugins.proportion import queue_committed


def blockers_of(ev: Evaluation, names: Sequence[str], queue: str | None) -> list[str]:
    """Reservations that hold the short resources, stale ones first."""
    assert ev.cluster is not None
    out = []
    for group in ev.cluster.groups:
        if queue is not None and group.queue != queue:
            continue
        if group.inqueue:
            held = group.min_res
        elif group.running_reserved and group.min_raw is not None:
            held = (
                inqueue_resource(group.min_raw, group.allocated) if queue is None else group.min_res
            )
        else:
            continue
        if not any(get(held, n) > 0 for n in names):
            continue
        stale = group.live_pods == 0
        note = (
            "Inqueue with no live pods, likely stale: delete it if its job is gone"
            if stale
            else group.phase
        )
        holds = show_res(held, [n for n in names if get(held, n) > 0])
        out.append((not stale, f"{group.key} ({note}; holds {holds})"))
    return [text for _, text in sorted(out)]


def check_enqueue(ev: Evaluation, admitted: list[Admitted]) -> None:
    if ev.cluster is None or not ev.cluster.has_nodes:
        where = "no cluster snapshot" if ev.cluster is None else "no Node objects"
        ev.add("overcommit", "skip", f"{where}: cluster usage unknown")
        ev.add("proportion", "skip", f"{where}: queue usage unknown")
        return
    early = f"; {len(admitted)} Pending PodGroup(s) are admitted first" if admitted else ""
    check_overcommit(ev, admitted, early)
    check_proportion(ev, admitted, early)


def check_overcommit(ev: Evaluation, admitted: list[Admitted], early: str) -> None:
    assert ev.cluster is not None
    minimum = ev.minimum
    idle = overcommit_idle(ev.cluster, ev.factor)
    held = overcommit_held(ev.cluster, reserved_by(admitted))
    short = insufficient(add_res(held, minimum), idle, minimum)
    names = asked_names(minimum)
    factor = factor_text(ev.factor)
    if not short:
        left = show_res(sub(idle, held), names)
        ev.add(
            "overcommit",
            "pass",
            f"needs {show_res(minimum, names)}; {factor} x allocatable - used - reserved "
            f"leaves {left}{early}",
        )
        return
    volcano = "resource in cluster is overused: " + ", ".join(f"overused {n}" for n in short)
    deficit = {n: get(held, n) + get(minimum, n) - get(idle, n) for n in short}
    fixes = []
    blockers = blockers_of(ev, short, None)
    if blockers:
        fixes.append("finish or delete " + ", ".join(blockers))
    shrink = replica_fix(ev, deficit)
    if shrink:
        fixes.append(shrink)
    total = ev.cluster.total
    for name in short:
        if get(total, name) <= 0:
            fixes.append(f"add nodes that offer {name}")
        else:
            more = round_up(name, deficit[name] / ev.factor)
            fixes.append(f"add nodes with {name} {show(name, more)} allocatable")
    # overcommit votes first: its event is the one the PodGroup shows, and proportion is
    # not asked, so its reason is never folded into the capability check's.
    ev.enqueue_event = ("overcommit", volcano)
    ev.add(
        "overcommit",
        "fail",
        f"{volcano}: needs {show_res(minimum, short)}; {factor} x allocatable "
        f"({show_res(scale(total, ev.factor), short)}) - used "
        f"({show_res(ev.cluster.used, short)}) leaves {show_res(idle, short)}, and "
        f"admitted gangs reserve {show_res(held, short)}{early}",
        f"{volcano} -- enqueue admits a gang only while {factor} x the cluster's "
        f"allocatable, minus what pods use and what admitted gangs reserve "
        f"({show_res(held, short)}), still covers it; the PodGroup stays Pending. "
        f"Fix: {'; or '.join(fixes)}.",
    )


def check_proportion(ev: Evaluation, admitted: list[Admitted], early: str) -> None:
    assert ev.cluster is not None
    minimum = ev.minimum
    names = asked_names(minimum)
    q = ev.queue
    if q is None:
        ev.add("proportion", "skip", f"queue {ev.qname} unknown")
        return
    if not q.open:
        ev.add(
            "proportion",
            "fail",
            f"queue {q.name} is not Open: proportion rejects the gang (no event)",
            same_cause="queue",
        )
        return
    real = ev.real_capability(q, ev.cluster.total) or {}
    committed = queue_committed(ev.cluster, q.name, reserved_by(admitted, q.name))
    short = insufficient(add_res(minimum, committed), real, minimum)
    if not short:
        ev.add(
            "proportion",
            "pass",
            f"queue {q.name}: realCapability {show_res(real, names)}, committed "
            f"{show_res(committed, names)}, this gang {show_res(minimum, names)}{early}",
        )
        return
    volcano = "queue resource quota insufficient: " + ", ".join(f"insufficient {n}" for n in short)
    if ev.enqueue_event is None:
        ev.enqueue_event = ("proportion", volcano)
    deficit = {n: get(committed, n) + get(minimum, n) - get(real, n) for n in short}
    fixes = []
    blockers = blockers_of(ev, short, q.name)
    if blockers:
        fixes.append("finish or delete " + ", ".join(blockers))
    shrink = replica_fix(ev, deficit)
    if shrink:
        fixes.append(shrink)
    if all(n in q.capability and get(real, n) >= q.capability[n] for n in short):
        fixes.append(
            " and ".join(
                f"raise queue {q.name} capability {n} from {show(n, q.capability[n])} "
                f"to {show(n, get(committed, n) + get(minimum, n))}"
                for n in short
            )
        )
    ev.add(
        "proportion",
        "fail",
        f"{volcano}: queue {q.name} realCapability {show_res(real, short)}, committed "
        f"{show_res(committed, short)}, this gang {show_res(minimum, short)}{early}",
        f"{volcano} -- queue {q.name} can hold {show_res(real, short)}, its admitted "
        f"gangs already hold {show_res(committed, short)} and this gang needs "
        f"{show_res(minimum, short)} more, so the PodGroup stays Pending. "
        f"Fix: {'; or '.join(fixes)}.",
        same_cause="capability",
    )
