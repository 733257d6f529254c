"""The pack's policies: name, level by default, what each checks, and the rule behind it.

The README's table lists these; the wrapper (:mod:`raygang_policy.wiring`) turns each into a
pulumi_policy policy. Stack policies see every resource at once (a PodGroup and the pods that
name it are separate resources); resource policies see one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from raygang_policy import rules
from raygang_policy.objects import Finding, StackResource

__all__ = ["POLICIES", "PolicySpec"]


@dataclass(frozen=True, slots=True)
class PolicySpec:
    """One policy of the pack.

    Attributes:
        name: the policy's name (what ``--policy-pack-config`` and
            ``raygang-policy:enforcement`` key on).
        level: the enforcement level by default: ``mandatory`` or ``advisory``.
        description: one line, shown with every violation.
        stack_rule: the rule over the whole stack (a stack policy), or
        resource_rule: the rule over one resource (a resource policy).
    """

    name: str
    level: str
    description: str
    stack_rule: rules.StackRule | None = None
    resource_rule: Callable[[StackResource], list[Finding]] | None = None


POLICIES: tuple[PolicySpec, ...] = (
    PolicySpec(
        "gang-valid-input",
        "mandatory",
        "A gang's RayCluster, RayJob, submitter and PodGroup pass KubeRay's validation.",
        stack_rule=rules.kuberay_validation,
    ),
    PolicySpec(
        "gang-podgroup-matches-kuberay",
        "mandatory",
        "A PodGroup's minMember and minResources are what KubeRay's Volcano adapter (or "
        "raygang's effective accounting) computes for the pods it groups.",
        stack_rule=rules.podgroup_gang,
    ),
    PolicySpec(
        "gang-submitter-not-member",
        "mandatory",
        "The submitter Job's pod is never counted in the PodGroup's minMember.",
        stack_rule=rules.submitter_not_member,
    ),
    PolicySpec(
        "gang-pod-annotations",
        "mandatory",
        "Ray pods scheduled by Volcano name a PodGroup that exists, with the task-spec "
        "KubeRay's adapter gives them.",
        stack_rule=rules.pod_group_annotations,
    ),
    PolicySpec(
        "gang-queue-exists",
        "mandatory",
        "A gang's queue is declared in the stack or known to exist.",
        stack_rule=rules.queue_exists,
    ),
    PolicySpec(
        "gang-admissible",
        "mandatory",
        "Volcano can admit the gang on the declared nodes (raygang's preflight).",
        stack_rule=rules.admissible,
    ),
    PolicySpec(
        "raygang-job-records",
        "mandatory",
        "raygang's jobs have one record each, and their PodGroup, RayCluster and submitter "
        "are owned by it.",
        stack_rule=rules.raygang_records,
    ),
    PolicySpec(
        "security-no-unneeded-token",
        "advisory",
        "Ray and submitter pods do not mount a ServiceAccount token they never use.",
        resource_rule=rules.unneeded_token,
    ),
    PolicySpec(
        "security-no-cluster-admin",
        "advisory",
        "No binding grants cluster-admin.",
        resource_rule=rules.no_cluster_admin,
    ),
)
