"""The RayCluster's options KubeRay constrains: GCS fault tolerance, autoscaler, token auth.

Follows the fault-tolerance, autoscaler (v1 and v2) and ``authOptions`` rules of KubeRay's
``ValidateRayClusterSpec`` (``ray-operator/controllers/ray/utils/validation.go``), which read
``rayStartParams``, the head container's env and the RayJob's annotations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from raygang.rayjob.validate.read import Checker, as_list, as_map, as_str, str_map, version_below

FT_ANNOTATION = "ray.io/ft-enabled"

EXTERNAL_STORAGE_ANNOTATION = "ray.io/external-storage-namespace"

AUTOSCALER_V2_ENV = "RAY_enable_autoscaler_v2"


def check_fault_tolerance(
    c: Checker,
    cluster: Mapping[str, Any],
    head: Mapping[str, Any],
    head_env: Mapping[str, str],
    annotations: Mapping[str, str],
) -> None:
    """KubeRay's GCS fault tolerance rules in ValidateRayClusterSpec."""
    base = "spec.rayClusterSpec"
    options = cluster.get("gcsFaultToleranceOptions")
    params = str_map(head.get("rayStartParams"))
    env_path = f"{base}.headGroupSpec.template.spec.containers[0].env"
    if annotations.get(FT_ANNOTATION) and options is not None:
        c.bad(
            f"{base}.gcsFaultToleranceOptions",
            f"the {FT_ANNOTATION} annotation and gcsFaultToleranceOptions are both set",
            "only gcsFaultToleranceOptions",
        )
    enabled = options is not None or annotations.get(FT_ANNOTATION, "").lower() == "true"
    if not enabled and "RAY_REDIS_ADDRESS" in head_env:
        c.bad(
            env_path,
            "RAY_REDIS_ADDRESS is set, which implicitly enables GCS fault tolerance, but "
            "gcsFaultToleranceOptions is not set",
            "gcsFaultToleranceOptions to enable GCS fault tolerance",
        )
    if options is not None:
        for found, where, instead in (
            (params.get("redis-password"), "rayStartParams['redis-password']", "redisPassword"),
            ("REDIS_PASSWORD" in head_env, "REDIS_PASSWORD env var", "redisPassword"),
            ("RAY_REDIS_ADDRESS" in head_env, "RAY_REDIS_ADDRESS env var", "redisAddress"),
            (
                annotations.get(EXTERNAL_STORAGE_ANNOTATION),
                f"{EXTERNAL_STORAGE_ANNOTATION} annotation",
                "externalStorageNamespace",
            ),
        ):
            if found:
                c.bad(
                    f"{base}.gcsFaultToleranceOptions",
                    f"cannot set the {where} when gcsFaultToleranceOptions is enabled",
                    f"gcsFaultToleranceOptions.{instead}",
                )
    if params.get("redis-username") or "REDIS_USERNAME" in head_env:
        c.bad(
            f"{base}.headGroupSpec",
            "cannot set the redis username in rayStartParams or environment variables",
            "gcsFaultToleranceOptions.redisUsername",
        )


def check_autoscaler(
    c: Checker,
    cluster: Mapping[str, Any],
    head_pod: Mapping[str, Any],
    head_env: Mapping[str, str],
    scaling: bool,
) -> None:
    """KubeRay's autoscaler rules in ValidateRayClusterSpec."""
    base = "spec.rayClusterSpec"
    env_value = head_env.get(AUTOSCALER_V2_ENV)
    env_path = f"{base}.headGroupSpec.template.spec.containers[0].env"
    if not scaling:
        if env_value in ("1", "true"):
            c.bad(
                env_path,
                f"{AUTOSCALER_V2_ENV} cannot be set to {env_value!r} when "
                "enableInTreeAutoscaling is false",
                "enableInTreeAutoscaling: true to use autoscaler v2",
            )
        return
    options = as_map(cluster.get("autoscalerOptions"))
    version = options.get("version")
    if version is not None and env_value is not None:
        c.bad(
            f"{base}.autoscalerOptions.version",
            f"both autoscalerOptions.version and the head env var {AUTOSCALER_V2_ENV} are set",
            "only autoscalerOptions.version",
        )
    v2 = version == "v2" or (version is None and env_value in ("1", "true"))
    if not v2:
        return
    if head_pod.get("restartPolicy") not in (None, "", "Never"):
        c.bad(
            f"{base}.headGroupSpec.template.spec.restartPolicy",
            "restartPolicy for head Pod should be Never or unset when using autoscaler V2",
            "Never, or no restartPolicy",
        )
    for index, group in enumerate(as_list(cluster.get("workerGroupSpecs"))):
        pod = as_map(as_map(as_map(group).get("template")).get("spec"))
        if pod.get("restartPolicy") not in (None, "", "Never"):
            c.bad(
                f"{base}.workerGroupSpecs[{index}].template.spec.restartPolicy",
                "restartPolicy for worker Pods should be Never or unset when using autoscaler V2",
                "Never, or no restartPolicy",
            )


def check_auth(c: Checker, cluster: Mapping[str, Any]) -> None:
    auth = as_map(cluster.get("authOptions"))
    if auth.get("mode") != "token":
        return
    if auth.get("enableK8sTokenAuth") is True:
        # ValidateRayJobSpec: a RayJob's submitter has no Kubernetes identity to present.
        c.bad(
            "spec.rayClusterSpec.authOptions.enableK8sTokenAuth",
            "The RayJob spec is invalid: K8s token auth mode is currently not supported for RayJob",
            "false or unset: token auth with the token Secret (authOptions.secretName)",
        )
    version = as_str(cluster.get("rayVersion"))
    path = "spec.rayClusterSpec.rayVersion"
    if not version:
        c.bad(path, "authOptions.mode is 'token' but rayVersion is not set", "2.52.0 or later")
        return
    below = version_below(version, 2, 52, 0)
    if below is None:
        c.bad(path, f"{version!r} is not a version", "a version such as 2.52.0")
    elif below:
        c.bad(
            path,
            f"authOptions.mode is 'token' but the minimum Ray version is 2.52.0, got {version!r}",
            "2.52.0 or later",
        )
