"""The checks before the scheduler: the snapshot read, the queue (the PodGroup webhook), the
gang's validity (gang's ``JobValid``), and the queue's capability (proportion's
``realCapability``, which bounds every enqueue vote)."""

from __future__ import annotations

from raygang.preflight.evaluation import Evaluation
from raygang.preflight.fixes import replica_fix
from raygang.volcano.api import (
    Res,
    add_res,
    asked_names,
    get,
    insufficient,
    ordered,
    show,
    show_res,
    sub,
)
from raygang.volcano.cache import QueueView, status_of

_WEBHOOK = 'admission webhook "validatepodgroup.volcano.sh" denied the request: '


def check_snapshot(ev: Evaluation) -> None:
    cluster = ev.cluster
    if cluster is None:
        shapes = f"; {len(ev.shapes)} declared node shape(s)" if ev.shapes else ""
        ev.add(
            "snapshot",
            "skip",
            "no cluster snapshot: only the queue capability and per-pod fit can be checked"
            + shapes,
        )
        return
    parts = [
        f"{len(cluster.nodes)} node(s)",
        f"{len(cluster.pods)} pod(s)",
        f"{len(cluster.queues)} queue(s)",
        f"{len(cluster.groups)} other PodGroup(s)",
    ]
    message = f"{cluster.source}: {', '.join(parts)}"
    if cluster.own_group is not None:
        phase = status_of(cluster.own_group).get("phase") or "Pending"
        message += (
            f"; {ev.plan.podgroup_name} already exists (phase {phase}): it and its pods "
            "are left out, the gang is judged as if created anew"
        )
    if cluster.unreadable_pods:
        message += f"; {len(cluster.unreadable_pods)} pod(s) with unreadable specs ignored"
    ev.add("snapshot", "pass", message)


def check_queue(ev: Evaluation) -> None:
    q, name = ev.queue, ev.qname
    label = "" if ev.plan.queue else " (no volcano.sh/queue-name label)"
    if q is None:
        if ev.cluster is None or not ev.cluster.has_queues:
            where = (
                "no cluster snapshot"
                if ev.cluster is None
                else "the snapshot holds no Queue objects"
            )
            ev.add("queue", "skip", f"queue {name}{label} is not created by this stack and {where}")
            return
        known = ", ".join(sorted(ev.cluster.queues)) or "none"
        volcano = f'{_WEBHOOK}unable to find queue: queue.scheduling.volcano.sh "{name}" not found'
        ev.add(
            "queue",
            "fail",
            f"queue {name} does not exist and this stack does not create it (existing: {known})",
            f"{volcano} -- the PodGroup is refused, so no Ray pod is ever created. "
            f"Fix: declare queue {name} in this stack, or set label volcano.sh/queue-name "
            f"to an existing queue ({known}).",
            never=True,
        )
        return
    if not q.open:
        volcano = (
            f"{_WEBHOOK}can only submit PodGroup to queue with state `Open`, "
            f"queue `{name}` status is `{q.state}`."
        )
        ev.add(
            "queue",
            "fail",
            f"queue {name} is {q.state or 'not opened yet'}",
            f"{volcano} -- the webhook refuses the PodGroup and the scheduler would reject "
            f"it too. Fix: open queue {name} (vcctl queue operate --name {name} --action open) "
            "or use an Open queue.",
            never=True,
        )
        return
    if q.observed:
        how = "exists and is Open" + ("; this stack updates its spec" if q.declared else "")
    elif q.declared:
        how = "is created by this stack (the queue controller opens it)"
    else:
        how = "is Volcano's default queue (the scheduler creates it)"
    ev.add("queue", "pass", f"queue {name}{label} {how}")


def check_gang(ev: Evaluation) -> None:
    gang = ev.plan.gang
    pods = ev.pods.created
    parts = ", ".join(f"{m} {t.label}" for t, m, _ in ev.pods.roles)
    message = f"minMember {gang.min_member} <= {pods} pods created ({parts}"
    extra = ev.pods.extra_count
    message += f", {extra} above minReplicas)" if extra else ")"
    if ev.pods.submitter is not None:
        message += "; the submitter is reserved in minResources, not a member"
    real = ev.pods.request(extras=False)
    if ev.pods.submitter is not None:
        real = add_res(real, ev.pods.submitter.request)
    under = [n for n in asked_names(real) if get(real, n) > get(ev.minimum, n)]
    if under:
        # kuberay accounting leaves out init containers and overhead (peers.md pain 2):
        # Volcano then admits a gang on a reservation smaller than what it will use.
        message += (
            f"; minResources reserve less than the pods request "
            f"({show_res(ev.minimum, under)} < {show_res(real, under)}; accounting "
            f"{ev.plan.gang.accounting}), placement uses what the pods request"
        )
    if gang.min_member > pods:
        volcano = ev.session.job_condition(gang.min_member, ev.group_tasks, 0, None, "")
        ev.condition = volcano
        ev.add(
            "gang",
            "fail",
            f"minMember {gang.min_member} > {pods} pods",
            f"{volcano} -- Volcano waits for {gang.min_member} pods but only {pods} will "
            "exist, so the gang is never valid. Fix: make minMember match the pods "
            "(check replicas, minReplicas and suspended groups).",
            never=True,
        )
        return
    unmodelled = list(ev.pods.unmodelled)
    labels = ev.plan.item.job.metadata.labels
    if "volcano.sh/network-topology-mode" in labels:
        unmodelled.append("network topology (volcano.sh/network-topology-mode)")
    if unmodelled:
        text = ", ".join(unmodelled)
        ev.add(
            "gang",
            "warn",
            f"{message}; not modelled: {text}",
            f"the gang uses constraints preflight does not model ({text}); placement may "
            "differ from the prediction.",
        )
        return
    ev.add("gang", "pass", message)


def check_capability(ev: Evaluation) -> None:
    q = ev.queue
    if q is None:
        ev.add("capability", "skip", f"queue {ev.qname} unknown")
        return
    capability = ev.capability
    real = capability.real
    total = ev.cluster.total if ev.cluster is not None and capability.cluster_known else None
    if real is None:
        ev.add(
            "capability",
            "skip" if total is None else "pass",
            f"queue {q.name} has no capability; the cluster size is unknown without a snapshot",
        )
        return
    if total is None:
        # Without nodes only names the capability bounds can be compared.
        bounded = {n: v for n, v in ev.minimum.items() if n in real}
        short = insufficient(bounded, real, bounded)
    else:
        short = insufficient(ev.minimum, real, ev.minimum)
    need = show_res(ev.minimum, ordered(n for n in ev.minimum if n != "pods"))
    if not short:
        scope = (
            "capability"
            if total is None
            else "realCapability (capability, cluster size, other queues' guarantees)"
        )
        ev.add("capability", "pass", f"minResources ({need}) fit queue {q.name}'s {scope}")
        return
    volcano = "queue resource quota insufficient: " + ", ".join(f"insufficient {n}" for n in short)
    limits: list[str] = []
    fixes: list[str] = []
    for name in short:
        limit, fix = capability_limit(ev, q, name, real, total)
        limits.append(limit)
        fixes.append(fix)
    deficit = {n: get(ev.minimum, n) - get(real, n) for n in short}
    shrink = replica_fix(ev, deficit)
    fix = "; or ".join(([shrink] if shrink else []) + fixes)
    ev.short["capability"] = set(short)
    ev.add(
        "capability",
        "fail",
        f"{volcano}: minResources ({need}) exceed what queue {q.name} can ever hold: "
        f"{'; '.join(limits)}",
        f"{volcano} -- the gang needs {show_res(ev.minimum, short)} but "
        f"{'; '.join(limits)}, so the PodGroup stays Pending forever. Fix: {fix}.",
        never=True,
    )


def capability_limit(
    ev: Evaluation, q: QueueView, name: str, real: Res, total: Res | None
) -> tuple[str, str]:
    """What bounds the queue in ``name``, and the change that lifts the bound."""
    need = show(name, get(ev.minimum, name))
    capped = name in q.capability and (name not in ("cpu", "memory") or q.capability[name] > 0)
    if total is None or (capped and get(real, name) >= q.capability[name]):
        value = show(name, get(real, name))
        return (
            f"queue {q.name} capability {name} is {value}",
            f"raise queue {q.name} capability {name} from {value} to {need}",
        )
    offered = get(total, name)
    if offered <= 0:
        return (
            f"no node offers {name}",
            f"add nodes that offer {name}, or drop the {name} request",
        )
    guaranteed = offered + get(q.guarantee, name) - get(real, name)
    if guaranteed > 0:
        return (
            f"the cluster has {name} {show(name, offered)} of which other queues are "
            f"guaranteed {show(name, guaranteed)}",
            f"lower other queues' guarantee of {name}, or add nodes",
        )
    return (
        f"the whole cluster has {name} {show(name, offered)}",
        f"add nodes with {show_res(sub(ev.minimum, real), [name])} more",
    )
