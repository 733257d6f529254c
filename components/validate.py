"""Semantic checks on a parsed RayJob, reported all together.

Structural problems (wrong types, missing fields, bad quantities) are caught when the
model is built (:mod:`components.spec`). This module refuses what KubeRay's or Volcano's
admission would refuse later, at apply time or, worse, silently at run time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from components.errors import Problem
from components.spec import INT32_MAX, RayJobInput

__all__ = [
    "DNS1035_LABEL",
    "DNS1123_LABEL",
    "DNS1123_SUBDOMAIN",
    "MAX_JOB_NAME",
    "check_rayjob",
    "dns_problem",
]

DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")

# The longest object name we derive is the head Service "<job>-head-svc", a DNS-1035
# label of at most 63 characters.
MAX_JOB_NAME = 63 - len("-head-svc")

SUPPORTED_MODES = ("K8sJobMode", "SidecarMode", "InteractiveMode")
QUEUE_LABEL = "volcano.sh/queue-name"
TIER_LABEL = "volcano.sh/network-topology-highest-tier-allowed"
MODE_LABEL = "volcano.sh/network-topology-mode"


def dns_problem(value: str, kind: str, max_len: int) -> str | None:
    """Why ``value`` is not a valid name of the given kind, or None when it is.

    Args:
        value: the name.
        kind: ``DNS-1035 label``, ``DNS-1123 label`` or ``DNS-1123 subdomain``.
        max_len: the longest accepted name.
    """
    pattern = {
        "DNS-1035 label": DNS1035_LABEL,
        "DNS-1123 label": DNS1123_LABEL,
        "DNS-1123 subdomain": DNS1123_SUBDOMAIN,
    }[kind]
    if not value:
        return "must not be empty"
    if len(value) > max_len:
        return f"{value!r} is {len(value)} characters long, more than {max_len}"
    if not pattern.fullmatch(value):
        return f"{value!r} is not a valid {kind}"
    return None


def _name_rules(kind: str, max_len: int) -> str:
    start = "a lowercase letter" if kind == "DNS-1035 label" else "a lowercase letter or digit"
    return (
        f"a {kind} of at most {max_len} characters: lowercase letters, digits and '-', "
        f"starting with {start} and ending with a letter or digit"
    )


def check_rayjob(item: RayJobInput) -> list[Problem]:
    """Every semantic problem in one RayJob.

    Args:
        item: a RayJob that passed structural validation.

    Returns:
        Problems in document order; empty when the job can be planned.
    """
    src = item.source
    job = item.job
    spec = job.spec
    out: list[Problem] = []

    def bad(path: str, message: str, accepted: str = "") -> None:
        out.append(Problem(src, path, message, accepted))

    why = dns_problem(job.name, "DNS-1035 label", MAX_JOB_NAME)
    if why:
        bad(
            "metadata.name",
            f"{why}; raygang derives <name>-head-svc and ray-<name>-pg from it",
            _name_rules("DNS-1035 label", MAX_JOB_NAME),
        )
    why = dns_problem(job.namespace, "DNS-1123 label", 63)
    if why:
        bad("metadata.namespace", why, _name_rules("DNS-1123 label", 63))

    labels: Mapping[str, str] = job.metadata.labels
    if labels.get(QUEUE_LABEL):
        why = dns_problem(labels[QUEUE_LABEL], "DNS-1123 subdomain", 253)
        if why:
            bad(
                f"metadata.labels[{QUEUE_LABEL!r}]",
                f"queue name {why}",
                _name_rules("DNS-1123 subdomain", 253),
            )
    if MODE_LABEL in labels and TIER_LABEL in labels:
        tier = labels[TIER_LABEL]
        if not re.fullmatch(r"[+-]?\d+", tier):
            bad(
                f"metadata.labels[{TIER_LABEL!r}]",
                f"failed to convert {TIER_LABEL} label to int: {tier!r} is not an integer",
                "a whole number such as 1 or 2",
            )
    if MODE_LABEL in labels and labels[MODE_LABEL] not in ("hard", "soft"):
        bad(
            f"metadata.labels[{MODE_LABEL!r}]",
            f"{labels[MODE_LABEL]!r} is not a network topology mode (Volcano's CRD would refuse it)",
            "hard or soft",
        )

    mode = spec.submission_mode
    if mode == "HTTPMode":
        bad(
            "spec.submissionMode",
            "HTTPMode submits from inside the KubeRay operator, which raygang replaces; "
            "nothing would submit the job",
            "K8sJobMode (a submitter Job, the default), SidecarMode, or InteractiveMode",
        )
    elif mode not in SUPPORTED_MODES:
        bad("spec.submissionMode", f"{mode!r} is not a submission mode", ", ".join(SUPPORTED_MODES))
    if mode in ("K8sJobMode", "SidecarMode") and not spec.entrypoint.strip():
        bad("spec.entrypoint", f"is empty, but {mode} submits it", "a shell command, e.g. python main.py")
    if mode == "SidecarMode":
        if spec.submitter_pod_template is not None:
            bad("spec.submitterPodTemplate", "is not allowed in SidecarMode", "remove it, or use K8sJobMode")
        if spec.submitter_config is not None:
            bad("spec.submitterConfig", "is not allowed in SidecarMode", "remove it, or use K8sJobMode")
    if spec.submitter_config and (spec.submitter_config.backoff_limit or 0) < 0:
        bad("spec.submitterConfig.backoffLimit", "must not be negative", "0 or more")
    if spec.backoff_limit < 0:
        bad("spec.backoffLimit", f"{spec.backoff_limit} is negative", "0 or more")
    if spec.job_id is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", spec.job_id):
        bad(
            "spec.jobId",
            f"{spec.job_id!r} contains characters that are unsafe in a shell command",
            "letters, digits, '.', '_' and '-', starting with a letter or digit",
        )

    if spec.cluster_selector:
        bad(
            "spec.clusterSelector",
            f"gang scheduling does not support RayJob {job.namespace}/{job.name} referencing "
            "an existing RayCluster: Volcano needs the cluster spec to size the gang",
            "a spec.rayClusterSpec instead of spec.clusterSelector",
        )
    if spec.ray_cluster_spec is None:
        if not spec.cluster_selector:
            bad("spec.rayClusterSpec", "is required but missing", "a RayCluster spec with a headGroupSpec")
        return out

    if spec.ttl_seconds_after_finished < 0:
        bad("spec.ttlSecondsAfterFinished", "must not be negative", "0 or more seconds")
    if (
        spec.ttl_seconds_after_finished > 0
        and not spec.shutdown_after_job_finishes
        and spec.deletion_strategy is None
    ):
        bad(
            "spec.ttlSecondsAfterFinished",
            "is set but spec.shutdownAfterJobFinishes is not true, so it would never apply",
            "set spec.shutdownAfterJobFinishes: true, or remove ttlSecondsAfterFinished",
        )
    if spec.suspend and not spec.shutdown_after_job_finishes:
        bad(
            "spec.suspend",
            "a suspended RayJob must set spec.shutdownAfterJobFinishes: true (KubeRay's rule)",
            "spec.shutdownAfterJobFinishes: true",
        )

    cluster = spec.ray_cluster_spec
    scaling = cluster.enable_in_tree_autoscaling is True
    base = "spec.rayClusterSpec.workerGroupSpecs"
    seen: dict[str, int] = {}
    for index, group in enumerate(cluster.worker_group_specs):
        path = f"{base}[{index}]"
        why = dns_problem(group.group_name, "DNS-1123 label", 63)
        if why:
            bad(f"{path}.groupName", why, _name_rules("DNS-1123 label", 63))
        elif group.group_name in seen:
            bad(
                f"{path}.groupName",
                f"{group.group_name!r} is already used by {base}[{seen[group.group_name]}]",
                "a name unique among the worker groups",
            )
        seen.setdefault(group.group_name, index)
        for field, value in (
            ("replicas", group.replicas),
            ("minReplicas", group.min_replicas),
            ("maxReplicas", group.max_replicas),
        ):
            if value is not None and not 0 <= value <= INT32_MAX:
                bad(f"{path}.{field}", f"{value} is out of range", f"a whole number from 0 to {INT32_MAX}")
        low, high = group.min_replicas, group.max_replicas
        if low is not None and high is not None and low > high:
            bad(
                f"{path}.minReplicas",
                f"minReplicas {low} is greater than maxReplicas {high}",
                "minReplicas <= maxReplicas",
            )
        if not 1 <= group.num_of_hosts <= INT32_MAX:
            bad(f"{path}.numOfHosts", f"{group.num_of_hosts} is less than 1", "1 or more")
        if group.suspend and scaling:
            bad(
                f"{path}.suspend",
                "worker groups cannot be suspended while enableInTreeAutoscaling is true",
                "remove suspend, or set enableInTreeAutoscaling: false",
            )
    return out
