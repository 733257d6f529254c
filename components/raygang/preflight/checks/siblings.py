"""The advisory siblings check: the stack's other jobs in the same queue, created by the same
``pulumi up``, admitted and placed one after another."""

from __future__ import annotations

from raygang.preflight.evaluation import Evaluation
from raygang.preflight.jobpods import job_pods
from raygang.preflight.siblings import MAX_SIMULATED_SIBLINGS, SIBLINGS_NAMED, sibling_name
from raygang.volcano.actions.allocate import MAX_SIMULATED_PODS, place_gang
from raygang.volcano.actions.enqueue import ballots
from raygang.volcano.api import Res, add_res, fit_error_message, insufficient, show_res
from raygang.volcano.decisions import Admitted


def check_siblings(ev: Evaluation) -> None:
    if not ev.siblings:
        ev.add("siblings", "pass", f"no other job of this stack uses queue {ev.qname}")
        return
    shown = [sibling_name(s) for s in ev.siblings[:SIBLINGS_NAMED]]
    more = len(ev.siblings) - len(shown)
    names = ", ".join(shown) + (f" and {more} more" if more else "")
    combined = add_res(ev.minimum, ev.siblings_minimum)
    problems: list[str] = []
    q = ev.queue
    if ev.cluster is not None and ev.cluster.has_nodes and q is not None:
        # The gates only sum what is admitted ahead: the siblings as one.
        # The gates only sum what is admitted ahead: the siblings as one. Each voter's
        # ballot alone and with them ahead; a voter that rejects only with them says so.
        ahead = Admitted("the stack's other jobs", ev.qname, ev.siblings_minimum)
        early = ev.admitted_first
        alone_votes = ballots(ev.session, ev.qname, ev.minimum, early)
        together_votes = ballots(ev.session, ev.qname, ev.minimum, [*early, ahead])
        for one, both in zip(alone_votes, together_votes, strict=True):
            if both.event is not None and one.permits:
                problems.append(both.event)
        many = len(ev.siblings) > MAX_SIMULATED_SIBLINGS
        sibling_pods = [] if many else [job_pods(s) for s in ev.siblings]
        small = all(p.created <= MAX_SIMULATED_PODS for p in [ev.pods, *sibling_pods])
        if not problems and many:
            problems += siblings_by_sum(ev, combined)
        elif not problems and small:
            gangs = [
                (list(p.gang), s.gang.min_member)
                for p, s in zip(sibling_pods, ev.siblings, strict=True)
            ]
            alone_nodes = ev.base_after_others()
            together_nodes = ev.after_siblings(gangs)
            minimum = ev.plan.gang.min_member
            alone = place_gang(
                ev.pods.gang, alone_nodes, minimum, ev.session, whole_gang=True, choice=ev.choice
            )
            together = place_gang(
                ev.pods.gang, together_nodes, minimum, ev.session, whole_gang=True, choice=ev.choice
            )
            if (alone.ready or alone.pipelined) and not (together.ready or together.pipelined):
                problems.append(
                    "the nodes cannot hold all these gangs at once: "
                    + fit_error_message(together.fit_errors, len(together_nodes))
                )
    elif q is not None and q.capability_raw:
        real = ev.capability.real or {}
        bounded = {n: v for n, v in combined.items() if n in real}
        short = insufficient(bounded, real, bounded)
        if short and not insufficient(
            {n: v for n, v in ev.minimum.items() if n in real}, real, ev.minimum
        ):
            problems.append(
                f"together they need {show_res(combined, short)}, queue {q.name} "
                f"capability is {show_res(real, short)}"
            )
    if problems:
        timeout = ev.plan.settings.cluster_ready_timeout_seconds
        # pulumi up waits for a RayJob's RayCluster, or for the RayCluster of its own itself.
        waited = "it" if ev.plan.kind == "RayCluster" else "its RayCluster"
        ev.add(
            "siblings",
            "warn",
            f"with {names} (same stack, same queue {ev.qname}): {'; '.join(problems)} -- "
            "Volcano admits them one after another (by priority, then age), so this "
            f"{ev.noun} may wait for another to finish, while pulumi up waits at most "
            f"clusterReadyTimeoutSeconds ({timeout}s) for {waited}",
        )
    else:
        ev.add(
            "siblings",
            "pass",
            f"fits together with {names} (same stack, same queue {ev.qname})"
            + (
                f" by summed resources (more than {MAX_SIMULATED_SIBLINGS} jobs in the "
                "queue: the gangs are not placed one by one)"
                if len(ev.siblings) > MAX_SIMULATED_SIBLINGS
                and ev.cluster is not None
                and ev.cluster.has_nodes
                and ev.queue is not None
                else ""
            ),
        )


def siblings_by_sum(ev: Evaluation, combined: Res) -> list[str]:
    """Too many siblings to place one gang after another for every job of the stack
    (that is quadratic in the stack's size): compare the gangs' summed minimum with
    the room the nodes have left once the pods placed before ours are placed.

    A shortfall here is certain (no placement can beat the sum); room in total does
    not prove that every gang finds nodes, which the message says.
    """
    nodes = ev.base_after_others()
    room = add_res(*(n.future_idle() for n in nodes if not n.unschedulable))
    short = insufficient(combined, room, combined)
    if not short:
        return []
    # Only a shortfall is reported, so the gang is placed alone only to tell one apart
    # from "it does not fit alone", which the placement check already says.
    alone = (
        place_gang(
            ev.pods.gang,
            nodes,
            ev.plan.gang.min_member,
            ev.session,
            whole_gang=True,
            choice=ev.choice,
        )
        if ev.pods.created <= MAX_SIMULATED_PODS
        else None
    )
    if alone is not None and not (alone.ready or alone.pipelined):
        return []
    return [
        f"the nodes cannot hold all these gangs at once: together they need "
        f"{show_res(combined, short)}, the nodes have {show_res(room, short)} left "
        f"(summed over the nodes: with more than {MAX_SIMULATED_SIBLINGS} jobs in the "
        "queue the gangs are not placed one by one)"
    ]
