"""The smallest changes that let a gang through: fewer replicas, smaller pods, tolerations,
more nodes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from raygang.kuberay.gang import desired_worker_replicas
from raygang.preflight.evaluation import Evaluation
from raygang.volcano.actions.allocate import place_gang
from raygang.volcano.api import (
    Node,
    Num,
    Task,
    asked_names,
    ceil_div,
    get,
    ordered,
    show,
    show_res,
    to_res,
)
from raygang.volcano.framework import QueueGate
from raygang.volcano.plugins.predicates import untolerated


def replica_fix(ev: Evaluation, deficit: Mapping[str, Num]) -> str | None:
    """The smallest replica cut of one worker group that frees ``deficit``."""
    cluster = ev.plan.item.job.spec.ray_cluster_spec
    if cluster is None or not deficit:
        return None
    scaling = cluster.enable_in_tree_autoscaling is True
    best: tuple[int, str] | None = None
    for index, share in ev.worker_groups():
        per = to_res(share.per_pod)
        if share.reserved <= 0 or any(get(per, n) <= 0 for n in deficit):
            continue
        group = cluster.worker_group_specs[index]
        hosts = max(group.num_of_hosts, 1)
        pods = max(ceil_div(v, get(per, n)) for n, v in deficit.items())
        drop = ceil_div(pods, hosts)
        current = share.reserved // hosts
        if drop > current:
            continue
        text = replica_text(share.group, current, current - drop, scaling, group.min_replicas)
        if best is None or drop < best[0]:
            best = (drop, text)
    return best[1] if best else None


def replica_cut(ev: Evaluation, task: Task, pods: int) -> str | None:
    """Fewer started replicas of ``task``'s worker group, ``pods`` pods fewer."""
    cluster = ev.plan.item.job.spec.ray_cluster_spec
    if cluster is None:
        return None
    for group in cluster.worker_group_specs:
        if group.group_name == task.group:
            hosts = max(group.num_of_hosts, 1)
            current = desired_worker_replicas(group) // hosts
            drop = ceil_div(pods, hosts)
            return f"reduce worker group {task.group} replicas from {current} to {current - drop}"
    return None


def replica_text(
    group: str, current: int, new: int, scaling: bool, min_replicas: int | None
) -> str:
    field_name = "minReplicas" if scaling else "replicas"
    text = f"reduce worker group {group} {field_name} from {current} to {new}"
    if not scaling and min_replicas and new < min_replicas:
        text += f" (and minReplicas to {new})"
    return text


def group_fix(
    ev: Evaluation,
    task: Task,
    fit_count: int | None,
    base: list[Node] | None = None,
    queue_ok: QueueGate | None = None,
    hint: int | None = None,
) -> str:
    """Fewer pods of the failing worker group, or a smaller pod, or more nodes.

    ``hint``: how many pods of the group a failed attempt placed (see ``max_members``).
    """
    cluster = ev.plan.item.job.spec.ray_cluster_spec
    options = []
    if task.label.startswith("worker group") and cluster is not None:
        index, share = next(
            ((i, s) for i, s in ev.worker_groups() if s.group == task.group), (None, None)
        )
        if index is not None and share is not None:
            group = cluster.worker_group_specs[index]
            hosts = max(group.num_of_hosts, 1)
            scaling = cluster.enable_in_tree_autoscaling is True
            current_pods = share.members
            fits = (
                fit_count
                if fit_count is not None
                else max_members(ev, task, base or [], queue_ok, hint)
            )
            if fits is not None and fits < current_pods:
                new = fits // hosts
                options.append(
                    replica_text(
                        task.group, current_pods // hosts, new, scaling, group.min_replicas
                    )
                )
    options.append(
        f"add a node that can take a {task.label} pod "
        f"({show_res(task.request, asked_names(task.request))})"
    )
    return ", or ".join(options)


def max_members(
    ev: Evaluation,
    task: Task,
    base: list[Node],
    queue_ok: QueueGate | None,
    hint: int | None = None,
) -> int | None:
    """The most pods of ``task``'s group with which the whole gang still places.

    A binary search over the group's size, the rest of the gang unchanged, that tries
    ``hint`` (a likely answer) first.
    """
    if not base:
        return None
    members = ev.pods.counts.get(task.group, 0)

    def places(size: int) -> bool:
        gang = [
            t
            for role, count, _ in ev.pods.roles
            for t in [role] * (size if role.group == task.group else count)
        ]
        outcome = place_gang(
            gang,
            list(base),
            len(gang),
            ev.session,
            whole_gang=True,
            queue_ok=queue_ok,
            choice=ev.choice,
        )
        return outcome.ready or outcome.pipelined

    # The failed attempt placed ``hint`` pods of the group before one fit nowhere; the
    # answer is usually that many, so the search starts there: hint places and hint + 1
    # does not settle it with two attempts (the search assumes, as before, that fewer
    # pods never place worse).
    if hint is not None and 0 <= hint < members:
        if places(hint):
            if hint + 1 >= members or not places(hint + 1):
                return hint
            low, high, found = hint + 2, members - 1, hint + 1
        else:
            low, high, found = 0, hint - 1, None
    else:
        low, high, found = 0, members - 1, None
    while low <= high:
        mid = (low + high) // 2
        if places(mid):
            found, low = mid, mid + 1
        else:
            high = mid - 1
    return found


def static_fix(
    ev: Evaluation, task: Task, nodes: Sequence[Node], reasons: Mapping[str, str]
) -> str:
    """The smallest change that lets ``task`` onto some empty node, per kind of refusal."""
    fixes = []
    tainted = [n for n in nodes if reasons.get(n.name, "").startswith("node(s) had untolerated")]
    if tainted:
        taint = untolerated(task, tainted[0])
        assert taint is not None
        fixes.append(
            f"add toleration {{key: {taint.get('key')}, operator: Exists, effect: "
            f"{taint.get('effect')}}} to the {task.label} pod template"
        )
    if "node(s) didn't match Pod's node affinity/selector" in reasons.values():
        fixes.append(f"change the {task.label} nodeSelector/affinity to match a node's labels")
    short = {r.removeprefix("Insufficient ") for r in reasons.values() if r.startswith("Insuf")}
    for name in ordered(short):
        offered = [get(n.allocatable, name) for n in nodes if get(n.allocatable, name) > 0]
        if not offered:
            fixes.append(f"add nodes that offer {name}, or drop the {name} request")
            continue
        asked = show(name, get(task.request, name))
        fixes.append(
            f"lower the {task.label} {name} request from {asked} to at most "
            f"{show(name, max(offered))} (the largest node), or add a larger node"
        )
    return "; or ".join(fixes) or "change the pod's scheduling constraints"
