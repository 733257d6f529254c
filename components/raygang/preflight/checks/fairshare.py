"""The fair-share check: allocate gives a queue at most its deserved share (proportion's
``queueAllocatable``) and the default actions never reclaim."""

from __future__ import annotations

from raygang.preflight.evaluation import Evaluation
from raygang.volcano.api import Res, add_res, insufficient, ordered, show_res, sub


def check_fair_share(ev: Evaluation) -> tuple[Res, Res] | None:
    if ev.cluster is None:
        ev.add("fair-share", "skip", "no cluster snapshot: other queues' demand unknown")
        return None
    if not ev.cluster.has_nodes:
        ev.add("fair-share", "skip", "the snapshot holds no Node objects")
        return None
    if ev.queue is None:
        ev.add("fair-share", "skip", f"queue {ev.qname} unknown")
        return None
    shares = ev.shares()
    deserved, allocated = shares.deserved, shares.allocated
    q = ev.queue
    mine = deserved[q.name]
    used = allocated[q.name]
    names = [n for n in ordered(ev.minimum) if n != "pods"]
    queues = len(deserved)
    among = f"among {queues} queues with jobs" if queues > 1 else "the only queue with jobs"
    gang = ev.pods.request()
    short = insufficient(add_res(used, gang), mine, gang)
    if not short:
        ev.add(
            "fair-share",
            "pass",
            f"queue {q.name} deserves {show_res(mine, names)} ({among}); allocated "
            f"{show_res(used, names)} + gang {show_res(gang, names)} fit",
        )
        return mine, used
    over = sub(add_res(used, gang), mine)
    same = "capability" if set(short) <= ev.short.get("capability", set()) else ""
    if ev.condition is None:
        # allocate skips the queue's tasks silently: the condition counts them Unschedulable
        # and names no origin.
        ev.condition = ev.session.job_condition(
            ev.plan.gang.min_member, ev.group_tasks, 0, None, ""
        )
    ev.add(
        "fair-share",
        "fail",
        f"queue {q.name} deserves {show_res(mine, short)} ({among}), has "
        f"{show_res(used, short)} allocated; the gang needs {show_res(gang, short)}",
        f"Queue <{q.name}> is overused when considering task <...>, ignore it (scheduler "
        f"log only, no event) -- allocate gives queue {q.name} at most its weighted fair "
        f"share {show_res(mine, short)}; it already has {show_res(used, short)} and "
        "the default actions never reclaim from other queues. Fix: raise queue "
        f"{q.name}'s weight or guarantee, or shrink the gang by {show_res(over, short)}.",
        same_cause=same,
    )
    return mine, used
