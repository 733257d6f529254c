"""The placement and submitter checks: the gang placed pod by pod as allocate does
(:mod:`raygang.volcano.actions.allocate`), then the pods above minReplicas and the submitter."""

from __future__ import annotations

from collections.abc import Sequence

from raygang.preflight.checks.others import before_notes, notes
from raygang.preflight.evaluation import Evaluation
from raygang.preflight.fixes import group_fix, replica_cut
from raygang.volcano.actions.allocate import (
    MAX_SIMULATED_PODS,
    GangOutcome,
    fit_failure,
    place_singly,
    place_sub_jobs,
)
from raygang.volcano.api import (
    ZERO,
    Node,
    Num,
    Res,
    Task,
    add_res,
    asked_names,
    fit_error_message,
    get,
    kept_back_message,
    ordered,
    short_on_node,
    show,
    show_res,
)
from raygang.volcano.decisions import Before, SubJobTurn
from raygang.volcano.framework import QueueGate, Session
from raygang.volcano.plugins.predicates import selects, untolerated


def check_placement(ev: Evaluation, fair: tuple[Res, Res] | None) -> None:
    if ev.cluster is None or not ev.cluster.has_nodes:
        why = "no cluster snapshot" if ev.cluster is None else "no Node objects"
        ev.add("placement", "skip", f"{why}: where the pods land is unknown")
        add_submitter_skip(ev, why)
        return
    if ev.pods.created > MAX_SIMULATED_PODS:
        ev.add("placement", "skip", f"{ev.pods.created} pods: too many to simulate")
        add_submitter_skip(ev, "placement not simulated")
        return
    before = ev.before()
    own = f"{ev.plan.namespace}/{ev.plan.podgroup_name}"
    # When the fair-share check already failed, or the queue is not Open (proportion's
    # record: its queueAllocatable refuses every pod, as its vote refused the gang and the
    # webhook the PodGroup), place without the queue's gate so this check tells whether
    # the nodes themselves could take the gang. The queue's allocation is the one at this
    # gang's turn: gangs of the queue served first count.
    gate = (
        ev.queue_gate(fair[1] if before.own_allocated is None else before.own_allocated)
        if fair is not None
        else None
    )
    closed = ev.queue is not None and ev.queue.name in ev.shares().closed
    queue_ok = gate if "fair-share" not in ev.failed and not closed else None
    base = ev.base_after_others()
    if gate is not None and "fair-share" in ev.failed:
        gated_condition(ev, base, gate)
    told = notes(before, own)
    prefix = ("; ".join(told) + "; ") if told else ""
    story = before_story(before, own)
    gang = ev.pods.gang
    nodes = list(base)
    first = ev.simulate(nodes, gang, queue_ok)
    # KubeRay creates the head first, but pods of the same second are ordered by UID:
    # the gang is placed head last too.
    second = ev.simulate(list(base), gang[1:] + gang[:1], queue_ok) if len(gang) > 1 else first
    ok_first = first.ready or first.pipelined
    ok_second = second.ready or second.pipelined
    if not (ok_first and ok_second):
        order = "head first (KubeRay's creation order)" if not ok_first else "head last"
        failing = first if not ok_first else second
        add_placement_failure(
            ev, base, failing, ok_first or ok_second, prefix, story, queue_ok, order
        )
        add_submitter_skip(ev, "not reached: the gang is not placed")
        return
    # Volcano's later turns take the replicas of sub-gang groups first (sub-jobs not yet
    # complete sort before the ready default one), each whole or not at all.
    turns = place_sub_jobs(ev.pods.extra_sub_jobs(), nodes, ev.session)
    if any(not t.kept for t in turns):
        add_sub_job_failure(ev, turns, len(nodes), prefix)
        add_submitter_skip(ev, "not reached: the RayCluster never becomes ready")
        return
    extras = ev.pods.single_extras
    placed, failed, errors = place_singly(extras, nodes, ev.session, ev.choice)
    placed += [node for t in turns for _, node in t.placed]
    if failed is not None:
        message = fit_error_message(errors, len(nodes))
        left = len(extras) - len(placed)
        fix = replica_cut(ev, failed, left) or f"free room for {left} {failed.label} pod(s)"
        ev.add(
            "placement",
            "fail",
            f"{prefix}the gang fits but {left} {failed.label} pod(s) above minReplicas do "
            f"not: {message}",
            f"{message} -- the gang ({ev.plan.gang.min_member} pods) is placed, but {left} "
            f"{failed.label} pod(s) above minReplicas stay Pending, so the RayCluster never "
            f"reports ready and the stack waits for it. Fix: {fix}.",
        )
        add_submitter_skip(ev, "not reached: the RayCluster never becomes ready")
        return
    where = ", ".join(sorted({node for _, node in first.placed} | set(placed)))
    waiting = " (some wait for terminating pods to release room)" if first.pipelined else ""
    count = ev.pods.created
    pods = f"all {count} pods fit" if count > 1 else "the pod fits"
    order = " in either pod order" if count > 1 else ""
    ev.add("placement", "pass", f"{prefix}{pods} on {where}{order}{waiting}")
    check_submitter(ev, nodes)


def add_sub_job_failure(
    ev: Evaluation, turns: Sequence[SubJobTurn], node_count: int, prefix: str
) -> None:
    """Replicas of a sub-gang group above minReplicas that Volcano cannot place whole.

    In Volcano's words: the fit error of the pod that found no room, and, on each pod of
    the replica placed before it, the text of a placement taken back
    (``TaskSchedulingReason``: ``... once minAvailable is satisfied``).
    """
    refused = [t for t in turns if not t.kept]
    first = refused[0]
    group = first.policy
    whole = sum(1 for t in turns if t.kept and t.policy == group)
    words = []
    if first.failed is not None:
        words.append(fit_error_message(first.fit_errors, node_count))
    words += [kept_back_message(f"{ev.plan.namespace}/{pod}", node) for pod, node in first.placed]
    volcano = "; ".join(words)
    left = sum(t.size for t in refused)
    fix = replica_cut_by(ev, group, left) or f"free room for {first.size} pods of one replica"
    kept = f"{whole} whole replica(s) above minReplicas placed, then " if whole else ""
    ev.add(
        "placement",
        "fail",
        f"{prefix}the gang fits but {len(refused)} replica(s) of worker group {group} above "
        f"minReplicas do not, and Volcano places a replica only whole ({first.size} pods, "
        f"subGroupPolicy): {volcano}",
        f"{volcano} -- the gang ({ev.plan.gang.min_member} pods) is placed; {kept}"
        f"{len(first.placed)} pod(s) of the next replica of worker group {group} fit and "
        f"are taken back, since Volcano keeps a replica only whole: none of the "
        f"{left} pod(s) of the {len(refused)} replica(s) left is bound, no half replica "
        "runs. They stay Pending, so the RayCluster never reports ready and the stack "
        f"waits for it. Fix: {fix}.",
    )


def replica_cut_by(ev: Evaluation, group: str, pods: int) -> str | None:
    """:func:`replica_cut` for a group by name."""
    task = next((t for t, _, _ in ev.pods.roles if t.group == group), None)
    return replica_cut(ev, task, pods) if task is not None else None


def gated_condition(ev: Evaluation, base: list[Node], gate: QueueGate) -> None:
    """The condition allocate writes when the queue's deserved share refuses part of the
    gang: the gang placed head first through proportion's gate, the refused pods skipped
    without a fit error (``allocateResourcesForTasks``), the others placed or not."""
    outcome = ev.simulate(list(base), ev.pods.gang, gate)
    if outcome.ready or outcome.pipelined:
        return
    failed = outcome.failed
    message = fit_error_message(outcome.fit_errors, len(base)) if failed is not None else ""
    ev.condition = ev.session.job_condition(
        ev.plan.gang.min_member, ev.group_tasks, outcome.allocated, failed, message
    )


def before_story(before: Before, own: str) -> str:
    """The turns before this gang's, as a sentence of the reason (empty when none)."""
    told = before_notes(before, own)
    if not told:
        return ""
    return (
        " Before this gang's turn (raygang's replay of allocate's queue and job order): "
        + "; ".join(told)
        + "."
    )


def add_submitter_skip(ev: Evaluation, why: str) -> None:
    if ev.pods.submitter is None:
        ev.add("submitter", "pass", no_submitter(ev))
    else:
        ev.add("submitter", "skip", why)


def no_submitter(ev: Evaluation) -> str:
    if ev.plan.kind == "RayCluster":
        # Its gang is judged as an InteractiveMode RayJob's; the mode is that stand-in's.
        return "RayCluster: no submitter pod"
    mode = ev.plan.mode
    return f"{mode}: " + (
        "it runs in the head pod" if mode == "SidecarMode" else "no submitter pod"
    )


def add_placement_failure(
    ev: Evaluation,
    base: list[Node],
    outcome: GangOutcome,
    order_dependent: bool,
    prefix: str,
    story: str,
    queue_ok: QueueGate | None,
    order: str,
) -> None:
    gang = ev.plan.gang
    pods = ev.group_tasks
    if outcome.failed is None:
        blocked = outcome.queue_blocked
        label = blocked.label if blocked else "a pod"
        ev.condition = ev.session.job_condition(gang.min_member, pods, outcome.allocated, None, "")
        ev.add(
            "placement",
            "fail",
            f"{prefix}the {label} pod is refused by queue {ev.qname}'s fair share",
            f"{ev.condition} -- "
            f"queue {ev.qname}'s fair share runs out before the gang is complete.{story} "
            "Fix: raise the queue's weight or guarantee, or shrink the gang.",
            same_cause="fit",
        )
        return
    failed = outcome.failed
    placed = sum(1 for task, _ in outcome.placed if task.group == failed.group)

    def fix() -> str:
        return group_fix(ev, failed, None, base, queue_ok, placed)

    message = fit_error_message(outcome.fit_errors, len(base))
    volcano = ev.session.job_condition(gang.min_member, pods, outcome.allocated, failed, message)
    if "fair-share" not in ev.failed:
        ev.condition = volcano  # else the gate's refusals, not this ungated attempt, show
    packable = best_fit_decreasing(ev.pods.gang, base, ev.session)
    free = add_res(*(n.idle for n in base if selects(failed, n)))
    need = ev.pods.request()
    asked = asked_names(failed.request)
    lacking = {
        r.removeprefix("Insufficient ")
        for r in outcome.fit_errors.values()
        if r.startswith("Insufficient ")
    }
    short_names = ordered(lacking) or asked
    resources_only = all(r.startswith("Insufficient ") for r in outcome.fit_errors.values())
    aggregate = resources_only and not short_on_node({n: get(need, n) for n in short_names}, free)
    explanation = f"the {failed.label} pod ({show_res(failed.request, asked)}) fits no node"
    if outcome.placed:
        explanation += f" once {len(outcome.placed)} pod(s) of the gang are placed"
    most = most_free(ev, base, failed, short_names)
    if most:
        explanation += f"; {most}"
    if aggregate:
        explanation += (
            f" although the nodes together have {show_res(free, short_names)} free: "
            "fragmentation, Volcano places pods one at a time and never moves placed ones"
        )
    if order_dependent or packable:
        detail = "the other order fits" if order_dependent else "a tighter packing fits"
        ev.add(
            "placement",
            "warn",
            f"{prefix}{order}: {message} but {detail}: the outcome depends on Volcano's pod "
            "order (creation second, then pod UID) and node scores",
            f"{volcano} -- {explanation}; whether Volcano finds a placement depends on pod "
            f"order and node scoring.{story} Fix: {fix()}.",
        )
        return
    ev.add(
        "placement",
        "fail",
        f"{prefix}{message} (the {failed.label} pod)",
        f"{volcano} -- {explanation}.{story} {waiting_text(ev)} Fix: {fix()}.",
        same_cause="fit",
    )


def waiting_text(ev: Evaluation) -> str:
    if ev.failed & {"overcommit", "proportion", "capability", "queue"}:
        return "Even once admitted it would wait here."
    return (
        "The PodGroup is admitted (Inqueue) and keeps its reservation, blocking other "
        "gangs, while it waits."
    )


def most_free(ev: Evaluation, nodes: Sequence[Node], task: Task, names: Sequence[str]) -> str:
    parts = []
    for name in names:
        candidates = [n for n in nodes if selects(task, n) and untolerated(task, n) is None]
        if not candidates:
            continue
        best = max(candidates, key=lambda n: (get(n.future_idle(), name), n.name))
        value = get(best.future_idle(), name)
        if value < get(task.request, name):
            most = show(name, max(value, ZERO))
            parts.append(f"the most free {name} on a node it may use is {most} ({best.name})")
    return "; ".join(parts)


def check_submitter(ev: Evaluation, nodes: list[Node]) -> None:
    task = ev.pods.submitter
    if task is None:
        ev.add("submitter", "pass", no_submitter(ev))
        return
    if task.best_effort:
        # allocate leaves a pod that requests nothing to the backfill action.
        ev.add(
            "submitter",
            "pass",
            "the submitter pod requests nothing (BestEffort): Volcano's backfill action places "
            "it once the RayCluster is ready",
        )
        return
    placed, failed, errors = place_singly([task], nodes, ev.session, ev.choice)
    if failed is None:
        ev.add(
            "submitter",
            "pass",
            f"the submitter pod fits on {placed[0]} after the gang (it is created once the "
            "RayCluster is ready)",
        )
        return
    message = fit_error_message(errors, len(nodes))
    ev.add(
        "submitter",
        "fail",
        f"the submitter pod fits no node once the gang is placed: {message}",
        f"{message} -- the RayCluster comes up but the submitter Job's pod "
        f"({show_res(task.request, asked_names(task.request))}) cannot be "
        "placed, so the Ray job is never submitted. Fix: lower submitterPodTemplate requests, "
        "or free that much on a node the submitter may use.",
    )


def best_fit_decreasing(tasks: Sequence[Task], nodes: Sequence[Node], session: Session) -> bool:
    """A careful packer: biggest pods first, each onto the node it leaves tightest.

    Used only to tell "Volcano's greedy order fails but a packing exists" apart from
    "nothing fits", never as Volcano's behaviour.
    """
    if any(
        not task.best_effort
        and not any(fit_failure(task, n, session, n.idle) is None for n in nodes)
        for task in tasks
    ):
        return False  # a pod no node can take even now: no packing places it
    work = [n.copy() for n in nodes]

    def size(task: Task) -> tuple[Num, ...]:
        scalars = sum(v for n, v in task.request.items() if n not in ("cpu", "memory", "pods"))
        return (scalars, task.request.get("cpu", 0), task.request.get("memory", 0))

    def tightest(task: Task, node: Node) -> tuple[Num, ...] | None:
        if fit_failure(task, node, session, node.idle) is not None:
            return None
        return tuple(node.idle.get(n, 0) - task.request[n] for n in asked_names(task.request))

    for task in sorted(tasks, key=size, reverse=True):
        if task.best_effort:
            continue
        ranked = [(rank, i) for i, n in enumerate(work) if (rank := tightest(task, n)) is not None]
        if not ranked:
            return False
        work[min(ranked)[1]].take(task.request, pipeline=False)
    return True
