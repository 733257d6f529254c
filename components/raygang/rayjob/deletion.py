"""A RayJob's deletion strategy: legacy ``onSuccess``/``onFailure`` and ``deletionRules``.

Parsed and checked as KubeRay v1.7.0 validates it
(``ray-operator/controllers/ray/utils/validation.go``, ``ValidateRayJobSpec``) and ordered by
impact as ``rayjob_controller.go`` applies the rules. The typed RayJob runs
:func:`read_deletion_strategy` as one of its validators (:mod:`raygang.rayjob.spec`) and keeps
the result, so a job that validated carries its checked strategy and nothing reads the raw
map again.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "POLICIES",
    "DeletionRule",
    "DeletionStrategy",
    "Finding",
    "read_deletion_strategy",
]

#: One problem of a strategy: (field path, message, what is accepted); the model adds the
#: document's source when it reports it.
Finding = tuple[str, str, str]

JOB_STATUSES = ("SUCCEEDED", "FAILED")
DEPLOYMENT_STATUSES = ("Failed",)


#: KubeRay's selectMostImpactfulRule order: a higher number removes more.
POLICIES: Mapping[str, int] = {
    "DeleteNone": 1,
    "DeleteWorkers": 2,
    "DeleteCluster": 3,
    "DeleteSelf": 4,
}


# --- deletionStrategy ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class DeletionRule:
    """One cleanup step: a policy applied ``ttl_seconds`` after the job finished.

    Attributes:
        policy: ``DeleteWorkers``, ``DeleteCluster``, ``DeleteSelf`` or ``DeleteNone``.
        job_status: ``SUCCEEDED`` or ``FAILED`` (the Ray job's status), or None.
        deployment_status: ``Failed`` (the deployment's status), or None.
        ttl_seconds: delay after the finish time.
        where: the field path the rule came from, for messages.
    """

    policy: str
    job_status: str | None = None
    deployment_status: str | None = None
    ttl_seconds: int = 0
    where: str = "spec.deletionStrategy"

    def matches(self, result: str) -> bool:
        """Whether the rule applies to a job that ended with ``result``.

        ``jobDeploymentStatus`` rules are KubeRay's from v1.6 (v1.5.0's CRD requires
        ``jobStatus``). raygang sees the submitter, not the Ray dashboard, so a failed
        submitter is both ``jobStatus: FAILED`` and ``jobDeploymentStatus: Failed``. KubeRay
        can tell a submission failure (``jobStatus`` not FAILED) from an application
        failure; raygang cannot, so a ``jobStatus: FAILED`` rule also cleans up after a
        failed submission, which releases capacity sooner rather than later.
        """
        if self.job_status is not None:
            return self.job_status == ("SUCCEEDED" if result == "succeeded" else "FAILED")
        return self.deployment_status == "Failed" and result == "failed"

    def describe(self) -> str:
        """E.g. ``...deletionRules[1]: DeleteCluster on jobStatus SUCCEEDED after 60s``."""
        on = (
            f"jobStatus {self.job_status}"
            if self.job_status is not None
            else f"jobDeploymentStatus {self.deployment_status}"
        )
        return f"{self.where}: {self.policy} on {on} after {self.ttl_seconds}s"


@dataclass(frozen=True, slots=True)
class DeletionStrategy:
    """``spec.deletionStrategy``, checked.

    Attributes:
        rules: ``deletionRules``; empty in legacy mode.
        on_success: legacy ``onSuccess.policy``.
        on_failure: legacy ``onFailure.policy``.
    """

    rules: tuple[DeletionRule, ...] = ()
    on_success: str | None = None
    on_failure: str | None = None


def read_deletion_strategy(
    raw: Mapping[str, Any], *, autoscaling: bool, shutdown: bool
) -> tuple[DeletionStrategy | None, list[Finding]]:
    """KubeRay's CRD rules and validateDeletionConfiguration on ``spec.deletionStrategy``.

    Args:
        raw: the strategy as written (a map with string keys; its values unchecked).
        autoscaling: ``rayClusterSpec.enableInTreeAutoscaling`` is true.
        shutdown: ``spec.shutdownAfterJobFinishes`` is true.

    Returns:
        The checked strategy and no findings, or None and every finding in field order.
    """
    problems: list[Finding] = []
    base = "spec.deletionStrategy"
    policies = ", ".join(POLICIES)

    def bad(path: str, message: str, accepted: str = "") -> None:
        problems.append((path, message, accepted))

    def policy_of(value: object, path: str) -> str | None:
        if value not in POLICIES:
            bad(path, f"{value!r} is not a deletion policy", policies)
            return None
        if value == "DeleteWorkers" and autoscaling:
            bad(
                path,
                "DeleteWorkers cannot be used while enableInTreeAutoscaling is true "
                "(the autoscaler would bring the workers back)",
                "DeleteCluster, or autoscaling off",
            )
        return str(value)

    legacy = "onSuccess" in raw or "onFailure" in raw
    rules_raw = raw.get("deletionRules")
    if legacy and rules_raw is not None:
        bad(
            base,
            "legacy policies (onSuccess/onFailure) and deletionRules cannot be used together",
            "either deletionRules, or both onSuccess and onFailure",
        )
        return None, problems
    if legacy:
        found: dict[str, str | None] = {}
        for key in ("onSuccess", "onFailure"):
            entry = raw.get(key)
            if not isinstance(entry, Mapping) or "policy" not in entry:
                bad(
                    f"{base}.{key}.policy",
                    "is required when the legacy policies are used",
                    policies,
                )
                found[key] = None
            else:
                found[key] = policy_of(entry["policy"], f"{base}.{key}.policy")
        if shutdown and "DeleteNone" in found.values():
            bad(
                base,
                "shutdownAfterJobFinishes is true while a legacy deletion policy is DeleteNone",
                "remove shutdownAfterJobFinishes, or pick another policy",
            )
        if problems:
            return None, problems
        return DeletionStrategy(on_success=found["onSuccess"], on_failure=found["onFailure"]), []
    if not isinstance(rules_raw, list) or not rules_raw:
        bad(
            base,
            "needs either both onSuccess and onFailure, or a non-empty deletionRules list",
            "deletionRules: [{policy: DeleteCluster, condition: {jobStatus: SUCCEEDED}}]",
        )
        return None, problems
    if shutdown:
        bad(
            "spec.shutdownAfterJobFinishes",
            "cannot be combined with spec.deletionStrategy.deletionRules",
            "a DeleteCluster rule instead of shutdownAfterJobFinishes",
        )
    rules: list[DeletionRule] = []
    seen: dict[tuple[str, str, str], int] = {}
    for index, entry in enumerate(rules_raw):
        where = f"{base}.deletionRules[{index}]"
        if not isinstance(entry, Mapping):
            bad(where, "is not a mapping", "{policy: ..., condition: {...}}")
            continue
        policy = policy_of(entry.get("policy"), f"{where}.policy")
        condition = entry.get("condition")
        if not isinstance(condition, Mapping):
            bad(
                f"{where}.condition",
                "is required",
                "{jobStatus: SUCCEEDED} or {jobDeploymentStatus: Failed}",
            )
            continue
        job_status = condition.get("jobStatus")
        deployment = condition.get("jobDeploymentStatus")
        if (job_status is None) == (deployment is None):
            bad(
                f"{where}.condition",
                "must set exactly one of jobStatus and jobDeploymentStatus",
                "jobStatus: SUCCEEDED|FAILED, or jobDeploymentStatus: Failed",
            )
            continue
        if job_status is not None and job_status not in JOB_STATUSES:
            bad(
                f"{where}.condition.jobStatus",
                f"{job_status!r} is not supported",
                "SUCCEEDED or FAILED",
            )
            continue
        if deployment is not None and deployment not in DEPLOYMENT_STATUSES:
            bad(
                f"{where}.condition.jobDeploymentStatus",
                f"{deployment!r} is not supported",
                "Failed",
            )
            continue
        ttl = condition.get("ttlSeconds", 0)
        if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl < 0:
            bad(
                f"{where}.condition.ttlSeconds",
                f"{ttl!r} is not a non-negative whole number",
                "0 or more",
            )
            continue
        if policy is None:
            continue
        rule_key = (
            ("jobStatus", str(job_status), policy)
            if job_status
            else ("jobDeploymentStatus", str(deployment), policy)
        )
        if rule_key in seen:
            bad(
                f"{where}",
                f"duplicates deletionRules[{seen[rule_key]}] "
                f"({policy} on {rule_key[0]} {rule_key[1]})",
                "one rule per policy and condition",
            )
            continue
        seen[rule_key] = index
        rules.append(
            DeletionRule(
                policy=policy,
                job_status=str(job_status) if job_status is not None else None,
                deployment_status=str(deployment) if deployment is not None else None,
                ttl_seconds=ttl,
                where=where,
            )
        )
    # KubeRay's validateTTLConsistency: per condition, a rule that removes more may not be
    # due before one that removes less (DeleteWorkers <= DeleteCluster <= DeleteSelf).
    by_condition: dict[tuple[str, str], list[DeletionRule]] = {}
    for rule in rules:
        cond = (
            ("jobStatus", rule.job_status)
            if rule.job_status
            else ("jobDeploymentStatus", rule.deployment_status)
        )
        by_condition.setdefault((cond[0], str(cond[1])), []).append(rule)
    for (kind, value), group in by_condition.items():
        ordered = sorted(
            (r for r in group if r.policy != "DeleteNone"), key=lambda r: POLICIES[r.policy]
        )
        for before, after in itertools.pairwise(ordered):
            if after.ttl_seconds < before.ttl_seconds:
                bad(
                    f"{after.where}.condition.ttlSeconds",
                    f"for {kind} {value!r}: {after.policy} TTL ({after.ttl_seconds}) must be >= "
                    f"{before.policy} TTL ({before.ttl_seconds})",
                    "TTLs that grow from DeleteWorkers to DeleteCluster to DeleteSelf",
                )
    if problems:
        return None, problems
    return DeletionStrategy(rules=tuple(rules)), []
