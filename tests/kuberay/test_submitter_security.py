"""raygang.kuberay.submitter.security: least privilege for every submitter pod."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from raygang.kuberay import submitter as sm

from tests.kuberay.conftest import job_spec, template_for


def user_pod(**pod: Any) -> dict[str, Any]:
    spec = job_spec(
        submitterPodTemplate={
            "spec": {"containers": [{"name": "c", "image": "i"}], **copy.deepcopy(pod)}
        }
    )
    return dict(template_for(spec)["spec"])


def test_a_custom_template_gets_no_token_and_a_restricted_context() -> None:
    pod = user_pod(initContainers=[{"name": "fetch", "image": "busybox"}])
    assert pod["automountServiceAccountToken"] is False
    for container in pod["initContainers"] + pod["containers"]:
        assert container["securityContext"] == sm.restricted_security_context()


def test_what_the_template_sets_wins_field_by_field() -> None:
    context = {
        "allowPrivilegeEscalation": True,
        "capabilities": {"add": ["NET_BIND_SERVICE"]},
        "seccompProfile": {"type": "Unconfined"},
        "runAsUser": 1000,
    }
    pod = user_pod(
        automountServiceAccountToken=True,
        containers=[{"name": "c", "image": "i", "securityContext": context}],
    )
    assert pod["automountServiceAccountToken"] is True
    # Issue 29: what the template adds stays added, and ALL the rest is still dropped.
    assert pod["containers"][0]["securityContext"] == {
        **context,
        "capabilities": {"add": ["NET_BIND_SERVICE"], "drop": ["ALL"]},
    }
    pod = user_pod(
        containers=[{"name": "c", "image": "i", "securityContext": {"runAsNonRoot": True}}]
    )
    assert pod["containers"][0]["securityContext"] == {
        "runAsNonRoot": True,
        **sm.restricted_security_context(),
    }


@pytest.mark.parametrize(
    "context",
    [{"privileged": True}, {"capabilities": {"add": ["SYS_ADMIN"]}}],
)
def test_no_escalation_setting_where_kubernetes_would_refuse_it(context: dict[str, Any]) -> None:
    pod = user_pod(containers=[{"name": "c", "image": "i", "securityContext": dict(context)}])
    assert "allowPrivilegeEscalation" not in pod["containers"][0]["securityContext"]


def test_an_explicit_drop_is_the_templates_own() -> None:
    context = {"capabilities": {"add": ["NET_ADMIN"], "drop": ["NET_RAW"]}}
    pod = user_pod(containers=[{"name": "c", "image": "i", "securityContext": context}])
    assert pod["containers"][0]["securityContext"]["capabilities"] == context["capabilities"]


def test_a_pod_level_seccomp_profile_is_not_overridden() -> None:
    pod = user_pod(
        securityContext={"seccompProfile": {"type": "Localhost", "localhostProfile": "p"}}
    )
    assert "seccompProfile" not in pod["containers"][0]["securityContext"]
    assert pod["securityContext"] == {
        "seccompProfile": {"type": "Localhost", "localhostProfile": "p"}
    }


def test_a_windows_pod_gets_only_the_token_setting() -> None:
    pod = user_pod(os={"name": "windows"})
    assert pod["automountServiceAccountToken"] is False
    assert "securityContext" not in pod["containers"][0]
