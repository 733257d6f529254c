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
from collections.abc import Mapping
from typing import Any, Final

from raygang.kuberay.submitter._errors import SubmitterError
from raygang.kuberay.submitter.fields import get_mapping
from raygang.kuberay.submitter.script import SUBMITTER_COMMAND, submit_shell
from raygang.kuberay.submitter.security import restricted_security_context

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


def _auth_options(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    cluster = get_mapping(spec, "rayClusterSpec", "spec")
    return get_mapping(cluster, "authOptions", "spec.rayClusterSpec")


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
    tokens: list[str] | None,
    force_command: bool,
    env_dashboard_address: str,
    submission_id: str,
    spec: Mapping[str, Any],
    cluster_name: str,
) -> None:
    """KubeRay's ``configureSubmitterContainer``: command, args, env, auth env."""
    if force_command or not container.get("command"):
        if tokens is None:
            raise SubmitterError("internal: the submit command is needed but was not built")
        # -e: stop at the first failing command, e.g. when `ray job submit` is refused.
        container["command"] = list(SUBMITTER_COMMAND)
        container["args"] = [submit_shell(tokens)]
    ours = {
        _ENV_PYTHONUNBUFFERED: "1",  # real-time logs in `kubectl logs`
        # Documented for users' own commands, e.g. --submission-id=$RAY_JOB_SUBMISSION_ID.
        _ENV_DASHBOARD_ADDRESS: env_dashboard_address,
        _ENV_SUBMISSION_ID: submission_id,
    }
    env = container.get("env") or []
    if not isinstance(env, list):
        raise SubmitterError("the submitter container's env must be a list")
    # KubeRay appends unconditionally and the later duplicate wins; server-side apply rejects
    # duplicate names, so drop the user's entry and keep the same effective value.
    env = [e for e in env if not (isinstance(e, Mapping) and e.get("name") in ours)]
    env += [{"name": name, "value": value} for name, value in ours.items()]
    auth = _auth_options(spec)
    if auth.get("mode") == "token":
        # K8s token auth (enableK8sTokenAuth) is refused when the RayJob is loaded.
        names = {e.get("name") for e in env if isinstance(e, Mapping)}
        # SetContainerTokenAuthEnvVars: only when the user has not set them already.
        if _ENV_AUTH_MODE not in names:
            env.append({"name": _ENV_AUTH_MODE, "value": "token"})
        if _ENV_AUTH_TOKEN not in names:
            secret = auth.get("secretName") or (cluster_name and _kuberay_check_name(cluster_name))
            if not secret:
                raise SubmitterError(
                    "token auth needs the RayCluster name (or authOptions.secretName) to find "
                    "the token Secret; pass job_name"
                )
            env.append(
                {
                    "name": _ENV_AUTH_TOKEN,
                    "valueFrom": {"secretKeyRef": {"name": secret, "key": _AUTH_TOKEN_SECRET_KEY}},
                }
            )
    container["env"] = env
