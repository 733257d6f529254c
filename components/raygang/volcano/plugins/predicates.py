"""The predicates plugin: can this pod run on this node, and Volcano's words when not.

Follows Volcano's ``pkg/scheduler/plugins/predicates/predicates.go`` over the kube-scheduler
filters it calls (NodeUnschedulable, NodeAffinity, TaintToleration), in their order,
registered as the session's predicate. The resource check (NodeResourcesFit against
``FutureIdle``) is allocate's own (:func:`raygang.volcano.actions.allocate.fit_failure`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from raygang.kube.core import NodeSelectorRequirement, NodeSelectorTerm, Toleration
from raygang.kube.goint import parse_int64
from raygang.volcano.api import Node, Task
from raygang.volcano.framework import Session

UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"

# The taint NodeUnschedulable matches a cordoned node's tolerations against.
CORDON_TAINT: Mapping[str, Any] = {"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule"}


def tolerates(toleration: Toleration, taint: Mapping[str, Any]) -> bool:
    """Kubernetes' ``Toleration.ToleratesTaint`` (k8s.io/api v0.34, which Volcano v1.14
    builds with): an empty effect or key matches any, ``Exists`` ignores the value, an
    empty operator means ``Equal``, and any other operator tolerates nothing."""
    if toleration.effect and toleration.effect != taint.get("effect"):
        return False
    if toleration.key and toleration.key != taint.get("key"):
        return False
    operator = toleration.operator or "Equal"
    if operator == "Exists":
        return True
    if operator != "Equal":
        return False
    return (toleration.value or "") == str(taint.get("value") or "")


def untolerated(task: Task, node: Node) -> Mapping[str, Any] | None:
    """The first NoSchedule/NoExecute taint that no toleration matches.

    Kubernetes' ``FindMatchingUntoleratedTaint``, in the node's taint order.
    """
    for taint in node.taints:
        if taint.get("effect") not in ("NoSchedule", "NoExecute"):
            continue
        if not any(tolerates(t, taint) for t in task.placement.tolerations):
            return taint
    return None


def requirement_matches(requirement: NodeSelectorRequirement, value: str | None) -> bool:
    """One requirement against a node's label or field, ``None`` when the node has none."""
    operator = requirement.operator
    values = requirement.values or ()
    if operator == "In":
        return value is not None and value in values
    if operator == "NotIn":
        return value is None or value not in values
    if operator == "Exists":
        return value is not None
    if operator == "DoesNotExist":
        return value is None
    if operator in ("Gt", "Lt") and value is not None and len(values) == 1:
        left, right = parse_int64(value), parse_int64(values[0])
        if left is None or right is None:
            return False
        return left > right if operator == "Gt" else left < right
    return False


def term_matches(term: NodeSelectorTerm, node: Node) -> bool:
    """A term matches when all its requirements do; ``matchFields`` read ``metadata.name``."""
    expressions = term.match_expressions or ()
    fields = term.match_fields or ()
    if not expressions and not fields:
        # An empty term matches no node (Kubernetes' NodeSelectorTerm semantics).
        return False
    if not all(requirement_matches(e, node.labels.get(e.key)) for e in expressions):
        return False
    return all(
        requirement_matches(e, node.name if e.key == "metadata.name" else None) for e in fields
    )


def selects(task: Task, node: Node) -> bool:
    """The NodeAffinity filter: nodeSelector and required node affinity."""
    for key, value in task.placement.node_selector.items():
        if node.labels.get(key) != value:
            return False
    terms = task.placement.required_terms
    return terms is None or any(term_matches(t, node) for t in terms)


def static_failure(task: Task, node: Node) -> str | None:
    """The predicates plugin's stable filters, each stopping at its first failure.

    NodeUnschedulable (a cordon, unless tolerated), NodeAffinity (nodeSelector and
    required node affinity), TaintToleration (NoSchedule and NoExecute taints).
    """
    if node.unschedulable and not any(
        tolerates(t, CORDON_TAINT) for t in task.placement.tolerations
    ):
        return "node(s) were unschedulable"
    if not selects(task, node):
        return "node(s) didn't match Pod's node affinity/selector"
    taint = untolerated(task, node)
    if taint is not None:
        key, value = taint.get("key", ""), taint.get("value") or ""
        return f"node(s) had untolerated taint {{{key}: {value}}}"
    return None


def on_session_open(session: Session) -> Session:
    """The plugin's ``OnSessionOpen``: its filters as the session's predicate."""
    return session.add_predicate(static_failure)
