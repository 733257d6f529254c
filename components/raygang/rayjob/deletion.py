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

from raygang.rayjob.problems import Finding

__all__ = [
    "POLICIES",
    "DeletionRule",
    "DeletionStrategy",
    "read_deletion_strategy",
]


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


_BASE = "spec.deletionStrategy"
_POLICY_NAMES = ", ".join(POLICIES)


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
    found: list[Finding] = []
    legacy = "onSuccess" in raw or "onFailure" in raw
    rules_raw = raw.get("deletionRules")
    if legacy and rules_raw is not None:
        found.append(
            (
                _BASE,
                "legacy policies (onSuccess/onFailure) and deletionRules cannot be used together",
                "either deletionRules, or both onSuccess and onFailure",
            )
        )
        return None, found
    if legacy:
        strategy = _legacy(raw, autoscaling, shutdown, found)
    elif not isinstance(rules_raw, list) or not rules_raw:
        found.append(
            (
                _BASE,
                "needs either both onSuccess and onFailure, or a non-empty deletionRules list",
                "deletionRules: [{policy: DeleteCluster, condition: {jobStatus: SUCCEEDED}}]",
            )
        )
        return None, found
    else:
        if shutdown:
            found.append(
                (
                    "spec.shutdownAfterJobFinishes",
                    "cannot be combined with spec.deletionStrategy.deletionRules",
                    "a DeleteCluster rule instead of shutdownAfterJobFinishes",
                )
            )
        rules = _rules(rules_raw, autoscaling, found)
        _check_ttl_order(rules, found)
        strategy = DeletionStrategy(rules=tuple(rules))
    return (None, found) if found else (strategy, [])


def _policy(value: object, path: str, autoscaling: bool, found: list[Finding]) -> str | None:
    """A deletion policy, or None when ``value`` is none.

    DeleteWorkers with the autoscaler is reported but still read, so the rules' other
    checks (duplicates, TTL order) see it, as KubeRay's do.
    """
    if value not in POLICIES:
        found.append((path, f"{value!r} is not a deletion policy", _POLICY_NAMES))
        return None
    if value == "DeleteWorkers" and autoscaling:
        found.append(
            (
                path,
                "DeleteWorkers cannot be used while enableInTreeAutoscaling is true "
                "(the autoscaler would bring the workers back)",
                "DeleteCluster, or autoscaling off",
            )
        )
    return str(value)


def _legacy(
    raw: Mapping[str, Any], autoscaling: bool, shutdown: bool, found: list[Finding]
) -> DeletionStrategy:
    """``onSuccess`` and ``onFailure``: both needed, each with a policy."""
    policies: dict[str, str | None] = {}
    for key in ("onSuccess", "onFailure"):
        entry = raw.get(key)
        path = f"{_BASE}.{key}.policy"
        if not isinstance(entry, Mapping) or "policy" not in entry:
            found.append((path, "is required when the legacy policies are used", _POLICY_NAMES))
            policies[key] = None
        else:
            policies[key] = _policy(entry["policy"], path, autoscaling, found)
    if shutdown and "DeleteNone" in policies.values():
        found.append(
            (
                _BASE,
                "shutdownAfterJobFinishes is true while a legacy deletion policy is DeleteNone",
                "remove shutdownAfterJobFinishes, or pick another policy",
            )
        )
    return DeletionStrategy(on_success=policies["onSuccess"], on_failure=policies["onFailure"])


def _rules(entries: list[Any], autoscaling: bool, found: list[Finding]) -> list[DeletionRule]:
    """Each ``deletionRules`` entry that is whole, and none twice (policy and condition)."""
    rules: list[DeletionRule] = []
    seen: dict[tuple[str, str, str], int] = {}
    for index, entry in enumerate(entries):
        where = f"{_BASE}.deletionRules[{index}]"
        rule = _rule(entry, where, autoscaling, found)
        if rule is None:
            continue
        kind, value = _condition(rule)
        key = (kind, value, rule.policy)
        if key in seen:
            found.append(
                (
                    where,
                    f"duplicates deletionRules[{seen[key]}] ({rule.policy} on {kind} {value})",
                    "one rule per policy and condition",
                )
            )
            continue
        seen[key] = index
        rules.append(rule)
    return rules


def _rule(
    entry: object, where: str, autoscaling: bool, found: list[Finding]
) -> DeletionRule | None:
    """One rule: its policy, then its condition, which stops at its first problem."""
    if not isinstance(entry, Mapping):
        found.append((where, "is not a mapping", "{policy: ..., condition: {...}}"))
        return None
    policy = _policy(entry.get("policy"), f"{where}.policy", autoscaling, found)
    condition = entry.get("condition")
    if not isinstance(condition, Mapping):
        found.append(
            (
                f"{where}.condition",
                "is required",
                "{jobStatus: SUCCEEDED} or {jobDeploymentStatus: Failed}",
            )
        )
        return None
    job_status = condition.get("jobStatus")
    deployment = condition.get("jobDeploymentStatus")
    ttl = condition.get("ttlSeconds", 0)
    if (job_status is None) == (deployment is None):
        found.append(
            (
                f"{where}.condition",
                "must set exactly one of jobStatus and jobDeploymentStatus",
                "jobStatus: SUCCEEDED|FAILED, or jobDeploymentStatus: Failed",
            )
        )
    elif job_status is not None and job_status not in JOB_STATUSES:
        found.append(
            (
                f"{where}.condition.jobStatus",
                f"{job_status!r} is not supported",
                "SUCCEEDED or FAILED",
            )
        )
    elif deployment is not None and deployment not in DEPLOYMENT_STATUSES:
        found.append(
            (f"{where}.condition.jobDeploymentStatus", f"{deployment!r} is not supported", "Failed")
        )
    elif isinstance(ttl, bool) or not isinstance(ttl, int) or ttl < 0:
        found.append(
            (
                f"{where}.condition.ttlSeconds",
                f"{ttl!r} is not a non-negative whole number",
                "0 or more",
            )
        )
    elif policy is not None:
        return DeletionRule(
            policy=policy,
            job_status=job_status,
            deployment_status=deployment,
            ttl_seconds=ttl,
            where=where,
        )
    return None


def _condition(rule: DeletionRule) -> tuple[str, str]:
    """The rule's condition as (field, value), e.g. ``("jobStatus", "SUCCEEDED")``."""
    if rule.job_status is not None:
        return "jobStatus", rule.job_status
    return "jobDeploymentStatus", str(rule.deployment_status)


def _check_ttl_order(rules: list[DeletionRule], found: list[Finding]) -> None:
    """KubeRay's validateTTLConsistency, per condition.

    A rule that removes more may not be due before one that removes less
    (DeleteWorkers <= DeleteCluster <= DeleteSelf).
    """
    by_condition: dict[tuple[str, str], list[DeletionRule]] = {}
    for rule in rules:
        by_condition.setdefault(_condition(rule), []).append(rule)
    for (kind, value), group in by_condition.items():
        ordered = sorted(
            (r for r in group if r.policy != "DeleteNone"), key=lambda r: POLICIES[r.policy]
        )
        for before, after in itertools.pairwise(ordered):
            if after.ttl_seconds < before.ttl_seconds:
                found.append(
                    (
                        f"{after.where}.condition.ttlSeconds",
                        f"for {kind} {value!r}: {after.policy} TTL ({after.ttl_seconds}) must "
                        f"be >= {before.policy} TTL ({before.ttl_seconds})",
                        "TTLs that grow from DeleteWorkers to DeleteCluster to DeleteSelf",
                    )
                )
