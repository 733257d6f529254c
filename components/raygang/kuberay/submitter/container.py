"""The submitter container: KubeRay's default one, and its command, args and env.

Follows ``GetDefaultSubmitterContainer`` (``ray-operator/controllers/ray/common/job.go``),
``configureSubmitterContainer`` (``ray-operator/controllers/ray/rayjob_controller.go``) and,
for Ray token auth, ``SetContainerTokenAuthEnvVars``
(``ray-operator/controllers/ray/common/pod.go``) and ``CheckName``
(``ray-operator/controllers/ray/utils/util.go``). Constants are KubeRay's
``ray-operator/controllers/ray/utils/constant.go``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, Final

from raygang.kube.core import EnvVar, PodSpec
from raygang.kuberay.submitter._errors import SubmitterError
from raygang.kuberay.submitter.script import SUBMITTER_COMMAND, submit_shell
from raygang.kuberay.submitter.security import restricted_security_context
from raygang.rayjob.spec import RayJobSpec

SUBMITTER_CONTAINER_NAME: Final = "ray-job-submitter"


DEFAULT_SUBMITTER_REQUESTS: Final[dict[str, str]] = {"cpu": "500m", "memory": "200Mi"}


DEFAULT_SUBMITTER_LIMITS: Final[dict[str, str]] = {"cpu": "1", "memory": "1Gi"}


_ENV_PYTHONUNBUFFERED: Final = "PYTHONUNBUFFERED"


_ENV_DASHBOARD_ADDRESS: Final = "RAY_DASHBOARD_ADDRESS"


_ENV_SUBMISSION_ID: Final = "RAY_JOB_SUBMISSION_ID"


_ENV_AUTH_MODE: Final = "RAY_AUTH_MODE"


_ENV_AUTH_TOKEN: Final = "RAY_AUTH_TOKEN"


_AUTH_TOKEN_SECRET_KEY: Final = "auth_token"


def default_submitter_container(image: str) -> dict[str, Any]:
    """KubeRay's ``GetDefaultSubmitterContainer`` plus :func:`restricted_security_context`.

    The image is the head's so the ``ray`` CLI matches the cluster's version. The requests
    (500m CPU, 200Mi) are what the PodGroup's ``minResources`` reserves for the submitter.

    Args:
        image: the container image.

    Returns:
        A container without command, args or env (see :func:`submitter_pod_template`).
    """
    return {
        "name": SUBMITTER_CONTAINER_NAME,
        "image": image,
        "resources": {
            "limits": dict(DEFAULT_SUBMITTER_LIMITS),
            "requests": dict(DEFAULT_SUBMITTER_REQUESTS),
        },
        # The submitter only runs `ray job ...` over HTTP; it never needs more privileges.
        "securityContext": restricted_security_context(),
    }


_HEAD_POD: Final = "spec.rayClusterSpec.headGroupSpec.template.spec"


def head_pod(spec: RayJobSpec) -> PodSpec:
    """The head pod's spec (the model holds at least one container in it).

    Raises:
        SubmitterError: the job has no RayCluster spec (it names a cluster instead).
    """
    cluster = spec.ray_cluster_spec
    if cluster is None:
        raise SubmitterError(f"{_HEAD_POD}.containers must list at least one container")
    return cluster.head_group_spec.template.spec


def head_image(spec: RayJobSpec) -> str:
    """The head container's image, which the default submitter runs.

    Raises:
        SubmitterError: the job has no RayCluster spec, or its head container no image.
    """
    image = head_pod(spec).containers[0].image
    if not image:
        # KubeRay copies the head image so the submitter's `ray` matches the cluster's.
        raise SubmitterError(
            f"{_HEAD_POD}.containers[0].image is required for the default submitter"
        )
    return image


def _kuberay_check_name(name: str) -> str:
    """KubeRay's ``CheckName`` (used for the auth token Secret's default name)."""
    if len(name) > 50:
        name = name[len(name) - 50 :]
    if name and (name[0].isdigit() or unicodedata.category(name[0]).startswith("P")):
        name = "r" + name[1:]
    return name


def configure_container(
    container: dict[str, Any],
    *,
    env: Sequence[EnvVar],
    tokens: list[str] | None,
    env_dashboard_address: str,
    submission_id: str,
    spec: RayJobSpec,
    cluster_name: str,
) -> None:
    """KubeRay's ``configureSubmitterContainer``: command, args, env, auth env.

    Args:
        container: the container to render (a copy of the user's, or the default one).
        env: its ``env`` as the typed model read it (``[]`` for the default container):
            the names decide; the entries written stay as they are (``valueFrom`` ...).
        tokens: the submit command, or None to keep the container's own command (KubeRay
            builds one only for a container without a command).
        env_dashboard_address: ``RAY_DASHBOARD_ADDRESS``.
        submission_id: ``RAY_JOB_SUBMISSION_ID``.
        spec: the typed RayJob ``spec`` (its ``authOptions``).
        cluster_name: the RayCluster's name, for the token Secret's default name.
    """
    if tokens is not None:
        # -e: stop at the first failing command, e.g. when `ray job submit` is refused.
        container["command"] = list(SUBMITTER_COMMAND)
        container["args"] = [submit_shell(tokens)]
    ours = {
        _ENV_PYTHONUNBUFFERED: "1",  # real-time logs in `kubectl logs`
        # Documented for users' own commands, e.g. --submission-id=$RAY_JOB_SUBMISSION_ID.
        _ENV_DASHBOARD_ADDRESS: env_dashboard_address,
        _ENV_SUBMISSION_ID: submission_id,
    }
    # The model read the same list, entry for entry.
    written: list[Any] = container.get("env") or []
    # KubeRay appends unconditionally and the later duplicate wins; server-side apply rejects
    # duplicate names, so drop the user's entry and keep the same effective value.
    rendered = [e for e, typed in zip(written, env, strict=True) if typed.name not in ours]
    rendered += [{"name": name, "value": value} for name, value in ours.items()]
    cluster = spec.ray_cluster_spec
    auth: Mapping[str, Any] = (cluster.auth_options if cluster is not None else None) or {}
    if auth.get("mode") == "token":
        # K8s token auth (enableK8sTokenAuth) is refused when the RayJob is loaded.
        names = {typed.name for typed in env} | ours.keys()
        # SetContainerTokenAuthEnvVars: only when the user has not set them already.
        if _ENV_AUTH_MODE not in names:
            rendered.append({"name": _ENV_AUTH_MODE, "value": "token"})
        if _ENV_AUTH_TOKEN not in names:
            secret = auth.get("secretName") or (cluster_name and _kuberay_check_name(cluster_name))
            if not secret:
                raise SubmitterError(
                    "token auth needs the RayCluster name (the RayJob's metadata.name) or "
                    "authOptions.secretName to find the token Secret"
                )
            rendered.append(
                {
                    "name": _ENV_AUTH_TOKEN,
                    "valueFrom": {"secretKeyRef": {"name": secret, "key": _AUTH_TOKEN_SECRET_KEY}},
                }
            )
    container["env"] = rendered
