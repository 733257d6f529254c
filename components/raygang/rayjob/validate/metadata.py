"""The RayJob's ``metadata``: its name, namespace, labels, annotation keys, scheduling labels.

Names and label syntax are Kubernetes' (``apimachinery/pkg/util/validation/validation.go``,
through :mod:`raygang.kube.names`); the name limit is KubeRay's (``ValidateRayJobMetadata`` in
``ray-operator/controllers/ray/utils/validation.go``); the scheduling labels are those
KubeRay's Volcano adapter reads
(``ray-operator/controllers/ray/batchscheduler/volcano/volcano_scheduler.go``).

Decisions documented here:

* A ``volcano.sh/queue-name`` label with an empty value is refused. KubeRay would copy it
  into ``PodGroup.spec.queue: ""``, which Volcano's CRD refuses (the DNS-1123 pattern does
  not match ""); omitting the label gives Volcano's ``default`` queue.
* ``metadata.generateName`` is refused: every derived name (``ray-<job>-pg``, the
  RayCluster, the submitter Job) must be known at preview time.
* Job names are capped at 47 characters, KubeRay's limit for RayJob names, which also keeps
  ``<job>-head-svc`` and the RayCluster name within their limits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from raygang.kube.names import (
    KEY_RULES,
    LABEL_VALUE_RULES,
    MAX_LABEL_VALUE,
    dns_problem,
    label_key_problem,
    label_value_problem,
    name_rules,
)
from raygang.rayjob.validate.read import Checker, as_map, as_str, str_map

# KubeRay's MaxRayJobNameLength. raygang names the RayCluster and the submitter Job after
# the job, and derives <job>-head-svc (a 63-character DNS-1035 label) and ray-<job>-pg.
MAX_JOB_NAME = 47

QUEUE_LABEL = "volcano.sh/queue-name"

PRIORITY_LABEL = "ray.io/priority-class-name"

TIER_LABEL = "volcano.sh/network-topology-highest-tier-allowed"

MODE_LABEL = "volcano.sh/network-topology-mode"


def check_metadata(c: Checker, meta: Mapping[str, Any]) -> None:
    name = meta.get("name")
    generate = as_str(meta.get("generateName"))
    if name is None or name == "":
        if generate is not None:
            c.bad(
                "metadata.name",
                f"is missing and metadata.generateName ({generate!r}) is not supported: "
                "raygang derives fixed names from it (RayCluster <name>, PodGroup "
                "ray-<name>-pg, Service <name>-head-svc) that must be known at preview",
                f"metadata.name: {name_rules('DNS-1035 label', MAX_JOB_NAME)}",
            )
        else:
            c.bad(
                "metadata.name",
                "is required but missing",
                name_rules("DNS-1035 label", MAX_JOB_NAME),
            )
    elif isinstance(name, str):
        why = dns_problem(name, "DNS-1035 label", MAX_JOB_NAME)
        if why:
            c.bad(
                "metadata.name",
                f"{why}; KubeRay caps RayJob names at {MAX_JOB_NAME} and raygang derives the "
                "RayCluster <name>, <name>-head-svc and ray-<name>-pg from it",
                name_rules("DNS-1035 label", MAX_JOB_NAME),
            )
    if "namespace" in meta and isinstance(meta["namespace"], str):
        why = dns_problem(meta["namespace"], "DNS-1123 label", 63)
        if why:
            c.bad(
                "metadata.namespace",
                why,
                name_rules("DNS-1123 label", 63) + "; omit it for the default namespace",
            )
    check_labels(c, "metadata.labels", meta.get("labels"))
    check_annotation_keys(c, "metadata.annotations", meta.get("annotations"))
    labels = str_map(meta.get("labels"))
    _check_scheduling_labels(c, labels)


def check_labels(c: Checker, path: str, raw: object) -> None:
    for key, value in as_map(raw).items():
        if not isinstance(key, str):
            continue
        where = f"{path}[{key!r}]"
        why = label_key_problem(key)
        if why:
            c.bad(where, f"label key {why}", KEY_RULES)
        if isinstance(value, str):
            why = label_value_problem(value)
            if why:
                c.bad(where, f"label value {why}", LABEL_VALUE_RULES)


def check_annotation_keys(c: Checker, path: str, raw: object) -> None:
    for key in as_map(raw):
        if isinstance(key, str) and (why := label_key_problem(key)):
            c.bad(f"{path}[{key!r}]", f"annotation key {why}", KEY_RULES)


def check_scheduling_labels(c: Checker, labels: Mapping[str, str]) -> None:
    """The labels KubeRay's Volcano adapter reads, on a RayJob or a RayCluster alike."""
    _check_scheduling_labels(c, labels)


def _check_scheduling_labels(c: Checker, labels: Mapping[str, str]) -> None:
    if QUEUE_LABEL in labels:
        queue = labels[QUEUE_LABEL]
        where = f"metadata.labels[{QUEUE_LABEL!r}]"
        if queue == "":
            c.bad(
                where,
                "is empty: KubeRay would set the PodGroup's spec.queue to \"\", which Volcano's "
                "CRD refuses",
                "a queue name, or no label at all for Volcano's default queue",
            )
        else:
            why = dns_problem(queue, "DNS-1123 subdomain", MAX_LABEL_VALUE)
            if why:
                c.bad(
                    where,
                    f"queue name {why}",
                    name_rules("DNS-1123 subdomain", MAX_LABEL_VALUE)
                    + " (a queue name travels as a label value)",
                )
    priority = labels.get(PRIORITY_LABEL)
    if priority:
        why = dns_problem(priority, "DNS-1123 subdomain", MAX_LABEL_VALUE)
        if why:
            c.bad(
                f"metadata.labels[{PRIORITY_LABEL!r}]",
                f"PriorityClass name {why}",
                name_rules("DNS-1123 subdomain", MAX_LABEL_VALUE),
            )
    tier = labels.get(TIER_LABEL)
    # KubeRay parses the tier with strconv.Atoi, and only when the mode label is set. A
    # sign is never in a valid label value, which the label check reports on its own.
    atoi_fails = tier is not None and not (tier.isdigit() and tier.isascii())
    if MODE_LABEL in labels and tier is not None and atoi_fails and not label_value_problem(tier):
        c.bad(
            f"metadata.labels[{TIER_LABEL!r}]",
            f"failed to convert {TIER_LABEL} label to int: {tier!r} is not an integer",
            "a whole number such as 1 or 2",
        )
    if MODE_LABEL in labels and labels[MODE_LABEL] not in ("hard", "soft"):
        c.bad(
            f"metadata.labels[{MODE_LABEL!r}]",
            f"{labels[MODE_LABEL]!r} is not a network topology mode (Volcano's CRD would "
            "refuse it)",
            "hard or soft",
        )
