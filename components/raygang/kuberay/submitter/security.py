"""Least privilege for every submitter pod: no API token, a restricted securityContext.

Beyond KubeRay, whose submitter (``GetDefaultSubmitterContainer`` in
``ray-operator/controllers/ray/common/job.go``) sets none of this: Kubernetes' ``restricted``
Pod Security Standard for what a container can choose, and no service-account token, filled
in only where the pod template leaves a field unset.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final


def restricted_security_context() -> dict[str, Any]:
    """The container securityContext every submitter gets unless its template says otherwise.

    Kubernetes' ``restricted`` Pod Security Standard for what a container can choose: no
    privilege escalation (setuid binaries), every Linux capability dropped, the runtime's
    default seccomp profile.
    """
    return {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }


_SYS_ADMIN: Final = frozenset({"SYS_ADMIN", "CAP_SYS_ADMIN"})


def _harden_container(container: dict[str, Any], pod_seccomp: bool) -> None:
    """Fill in :func:`restricted_security_context` fields the container leaves unset.

    What the user set wins, field by field (``capabilities.add`` without a ``drop`` gets
    ``drop: [ALL]`` beside it), and so do the combinations Kubernetes refuses
    with ``allowPrivilegeEscalation: false`` (``privileged: true``, ``CAP_SYS_ADMIN``): then
    it is left unset. A pod-level ``seccompProfile`` applies to containers without their own,
    so none is added over it.
    """
    context = container.get("securityContext")
    if context is None:
        context = container["securityContext"] = {}
    if not isinstance(context, dict):
        return  # not a mapping: validation reports it; nothing to merge into
    capabilities = context.get("capabilities")
    added = capabilities.get("add") if isinstance(capabilities, Mapping) else None
    escalates = context.get("privileged") is True or (
        isinstance(added, list) and any(str(c).upper() in _SYS_ADMIN for c in added)
    )
    if context.get("allowPrivilegeEscalation") is None and not escalates:
        context["allowPrivilegeEscalation"] = False
    if capabilities is None:
        context["capabilities"] = {"drop": ["ALL"]}
    elif isinstance(capabilities, Mapping) and capabilities.get("drop") is None:
        # A template that adds a capability keeps it: the runtime drops ALL first, then adds
        # (CRI); without the drop it would keep the runtime's whole default set besides.
        context["capabilities"] = {**capabilities, "drop": ["ALL"]}
    if context.get("seccompProfile") is None and not pod_seccomp:
        context["seccompProfile"] = {"type": "RuntimeDefault"}


def harden_pod(pod_spec: dict[str, Any]) -> None:
    """Least privilege for a submitter pod, default or the user's ``submitterPodTemplate``.

    No service-account token (the submitter talks to the Ray dashboard, never to the
    Kubernetes API: the entrypoint's shell would otherwise hold the namespace's API rights),
    and :func:`restricted_security_context` on every container. Only fields the template
    leaves unset are filled in. Windows pods get the token setting only (Kubernetes refuses
    these Linux fields for them).
    """
    if pod_spec.get("automountServiceAccountToken") is None:
        pod_spec["automountServiceAccountToken"] = False
    os_spec = pod_spec.get("os")
    if isinstance(os_spec, Mapping) and os_spec.get("name") == "windows":
        return
    pod_context = pod_spec.get("securityContext")
    pod_seccomp = isinstance(pod_context, Mapping) and pod_context.get("seccompProfile") is not None
    for key in ("initContainers", "containers"):
        containers = pod_spec.get(key)
        for container in containers if isinstance(containers, list) else ():
            if isinstance(container, dict):
                _harden_container(container, pod_seccomp)
