"""The RayJob ``spec``: what KubeRay's ``ValidateRayJobSpec`` and the submitter would refuse.

Follows ``ray-operator/controllers/ray/utils/validation.go`` (KubeRay): the submission mode,
the entrypoint, SidecarMode's restrictions, the submitter template and its ``backoffLimit``,
deadlines, ``managedBy``, TTL and suspend against ``shutdownAfterJobFinishes``, the runtime
env, the entrypoint's resources and ``clusterSelector``; the RayCluster spec is checked by
:mod:`.cluster`. What the submitter writes into its shell is checked as
:mod:`raygang.kuberay.submitter` would use it, by the submitter's own rules (``c.rules``,
:class:`.read.SubmitterRules`: ``jobId`` as a submission ID, the entrypoint as bash parses it,
the runtime env as Go converts it), in their place among these checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from raygang.kube import kubeyaml
from raygang.kube.errors import describe_value
from raygang.rayjob.validate.cluster import MANAGED_BY, check_cluster
from raygang.rayjob.validate.pod import check_template
from raygang.rayjob.validate.read import Checker, as_int, as_list, as_map, as_str, version_below

SUPPORTED_MODES = ("K8sJobMode", "SidecarMode", "InteractiveMode")

# KubeRay's words (ValidateRayJobSpec); the SidecarMode submitter refuses the same.
SIDECAR_NO_TEMPLATE = "Currently, SidecarMode doesn't support SubmitterPodTemplate"

SIDECAR_NO_CONFIG = "Currently, SidecarMode doesn't support SubmitterConfig"

FLOAT32_MAX = 3.4028234663852886e38


def check_spec(c: Checker, spec: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
    """``ValidateRayJobSpec`` and the submitter's rules, in the order they are reported."""
    mode_value = spec.get("submissionMode", "K8sJobMode")
    mode = mode_value if isinstance(mode_value, str) else "K8sJobMode"
    _check_mode(c, mode)
    submits = _check_entrypoint(c, spec, mode)
    _check_submitter(c, spec, mode)
    _check_retries_and_deadlines(c, spec, mode)
    _check_finish(c, spec)
    _check_submitted_values(c, spec, submits)
    _check_cluster_source(c, spec, mode, meta)


def _check_mode(c: Checker, mode: str) -> None:
    if mode == "HTTPMode":
        c.bad(
            "spec.submissionMode",
            "HTTPMode submits from inside the KubeRay operator, which raygang replaces; "
            "nothing would submit the job",
            "K8sJobMode (a submitter Job, the default), SidecarMode, or InteractiveMode",
        )
    elif mode not in SUPPORTED_MODES:
        c.bad(
            "spec.submissionMode",
            f"{mode!r} is not a submission mode",
            ", ".join(SUPPORTED_MODES),
        )


def _check_entrypoint(c: Checker, spec: Mapping[str, Any], mode: str) -> bool:
    """The entrypoint; returns whether the submitter runs ``ray job submit`` with it (a
    K8sJobMode template whose first container sets its own command does not)."""
    template_pod = as_map(as_map(spec.get("submitterPodTemplate")).get("spec"))
    first = as_list(template_pod.get("containers"))
    custom_command = bool(first) and as_map(first[0]).get("command") is not None
    entrypoint = spec.get("entrypoint", "")
    submits = mode == "SidecarMode" or (mode == "K8sJobMode" and not custom_command)
    if isinstance(entrypoint, str) and not entrypoint.strip() and submits:
        c.bad(
            "spec.entrypoint",
            f"is empty, but {mode} submits it with `ray job submit`",
            "a shell command, e.g. python main.py (or, in K8sJobMode, a "
            "submitterPodTemplate whose first container sets its own command)",
        )
    if isinstance(entrypoint, str) and "\x00" in entrypoint:
        c.bad("spec.entrypoint", "contains a NUL character", "a shell command")
    elif isinstance(entrypoint, str) and entrypoint.strip() and submits:
        refused = c.rules.entrypoint(entrypoint)
        if refused:
            c.bad("spec.entrypoint", *refused)
    return submits


def _check_submitter(c: Checker, spec: Mapping[str, Any], mode: str) -> None:
    """SidecarMode's refusals, or a K8sJobMode submitter template's pod; its backoffLimit."""
    template = as_map(spec.get("submitterPodTemplate"))
    if mode == "SidecarMode":
        if "submitterPodTemplate" in spec and spec["submitterPodTemplate"] is not None:
            c.bad("spec.submitterPodTemplate", SIDECAR_NO_TEMPLATE, "remove it, or use K8sJobMode")
        if "submitterConfig" in spec and spec["submitterConfig"] is not None:
            c.bad("spec.submitterConfig", SIDECAR_NO_CONFIG, "remove it, or use K8sJobMode")
    elif mode == "K8sJobMode" and template:
        pod_path = "spec.submitterPodTemplate.spec"
        policy = as_map(template.get("spec")).get("restartPolicy")
        if policy not in (None, "Never", "OnFailure"):
            c.bad(
                f"{pod_path}.restartPolicy",
                f"{describe_value(policy)} is not accepted by a Job's pod template",
                "Never or OnFailure (raygang fills in Never when it is unset)",
            )
        check_template(c, "spec.submitterPodTemplate", template)
    backoff = as_int(as_map(spec.get("submitterConfig")).get("backoffLimit"))
    c.whole("spec.submitterConfig.backoffLimit", backoff, 0)


def _check_retries_and_deadlines(c: Checker, spec: Mapping[str, Any], mode: str) -> None:
    """backoffLimit, the two deadlines and managedBy."""
    job_backoff = c.whole("spec.backoffLimit", spec.get("backoffLimit"), 0)
    if mode == "InteractiveMode" and job_backoff:
        c.bad(
            "spec.backoffLimit",
            "BackoffLimit is incompatible with InteractiveMode (a retry would reuse spec.jobId)",
            "0, or no backoffLimit",
        )
    c.whole("spec.activeDeadlineSeconds", spec.get("activeDeadlineSeconds"), 1)
    c.whole("spec.preRunningDeadlineSeconds", spec.get("preRunningDeadlineSeconds"), 1)
    managed = as_str(spec.get("managedBy"))
    if managed is not None and managed not in MANAGED_BY:
        c.bad(
            "spec.managedBy",
            f"{managed!r} is not accepted by the RayJob CRD",
            " or ".join(MANAGED_BY),
        )


def _check_finish(c: Checker, spec: Mapping[str, Any]) -> None:
    """The TTL and suspend, which KubeRay allows only with shutdownAfterJobFinishes."""
    shutdown = spec.get("shutdownAfterJobFinishes") is True
    ttl = c.whole("spec.ttlSecondsAfterFinished", spec.get("ttlSecondsAfterFinished"), 0)
    if ttl and not shutdown:
        c.bad(
            "spec.ttlSecondsAfterFinished",
            "a RayJob with shutdownAfterJobFinishes set to false cannot have "
            "TTLSecondsAfterFinished: it would never apply",
            "set spec.shutdownAfterJobFinishes: true, or remove ttlSecondsAfterFinished",
        )
    if spec.get("suspend") is True and not shutdown:
        c.bad(
            "spec.suspend",
            "a RayJob with shutdownAfterJobFinishes set to false is not allowed to be "
            "suspended (KubeRay's rule)",
            "spec.shutdownAfterJobFinishes: true",
        )


def _check_submitted_values(c: Checker, spec: Mapping[str, Any], submits: bool) -> None:
    """What the submitter passes to ``ray job submit``: the job ID, the runtime env, the
    entrypoint's resources and the metadata (its Ray version)."""
    job_id = spec.get("jobId")
    # An empty jobId is Go's zero value: KubeRay treats it as unset (InteractiveMode
    # samples ship `jobId: ""` for the user to fill in).
    refused = c.rules.job_id(job_id) if isinstance(job_id, str) and job_id else None
    if refused:
        c.bad("spec.jobId", *refused)
    runtime_env = spec.get("runtimeEnvYAML")
    refused = c.rules.runtime_env(runtime_env) if isinstance(runtime_env, str) else None
    if refused:
        c.bad("spec.runtimeEnvYAML", *refused)
    for key in ("entrypointNumCpus", "entrypointNumGpus"):
        value = spec.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            if value < 0:
                c.bad(f"spec.{key}", f"{describe_value(value)} is negative", "0 or more")
            elif value > FLOAT32_MAX:
                c.bad(
                    f"spec.{key}",
                    f"{describe_value(value)} does not fit KubeRay's float32",
                    "a number of CPUs or GPUs, e.g. 1 or 0.5",
                )
    version = as_str(as_map(spec.get("rayClusterSpec")).get("rayVersion"))
    # BuildJobSubmitCommand refuses --metadata-json for older Ray.
    if as_map(spec.get("metadata")) and version and submits and version_below(version, 2, 6, 0):
        c.bad(
            "spec.metadata",
            f"the Ray version must be at least 2.6.0 to use the metadata field; "
            f"rayVersion is {version!r}",
            "rayVersion 2.6.0 or later, or no spec.metadata",
        )
    resources = spec.get("entrypointResources")
    if isinstance(resources, str) and resources.strip():
        try:  # bounded: nesting, size and digits (Ray's json refuses > 4,300 digits)
            parsed = kubeyaml.load_json_value(resources, source="spec.entrypointResources")
        except kubeyaml.ManifestError:
            parsed = None
        if not isinstance(parsed, dict):
            c.bad(
                "spec.entrypointResources",
                f"{describe_value(resources)} is not a JSON object",
                "a JSON object of custom resources, e.g. '{\"Custom_1\": 1}'",
            )


def _check_cluster_source(
    c: Checker, spec: Mapping[str, Any], mode: str, meta: Mapping[str, Any]
) -> None:
    """The cluster: a rayClusterSpec (checked by :mod:`.cluster`), never a clusterSelector."""
    name = as_str(meta.get("name")) or "<name>"
    namespace = as_str(meta.get("namespace")) or "default"
    selector = spec.get("clusterSelector")
    if isinstance(selector, Mapping) and selector:
        c.bad(
            "spec.clusterSelector",
            f"gang scheduling does not support RayJob {namespace}/{name} referencing an "
            "existing RayCluster: Volcano needs the cluster spec to size the gang",
            "a spec.rayClusterSpec instead of spec.clusterSelector",
        )
    cluster = spec.get("rayClusterSpec")
    if cluster is None and not (isinstance(selector, Mapping) and selector):
        c.bad(
            "spec.rayClusterSpec",
            "is required but missing",
            "a RayCluster spec with a headGroupSpec",
        )
    if isinstance(cluster, Mapping):
        check_cluster(c, cluster, mode, meta)
