"""raygang.kuberay.submitter.container: the submitter container's env, Ray token auth included."""

from __future__ import annotations

from tests.kuberay.conftest import go_zero_container_names, job_spec, template_for


def test_dashboard_address_with_scheme_is_stripped_for_env() -> None:
    template = template_for(job_spec(), dashboard_address="http://x.ns.svc.cluster.local:8265")
    env = {e["name"]: e["value"] for e in template["spec"]["containers"][0]["env"]}
    assert env["RAY_DASHBOARD_ADDRESS"] == "x.ns.svc.cluster.local:8265"


def test_user_env_with_our_names_is_replaced_not_duplicated() -> None:
    user = {
        "spec": {
            "restartPolicy": "Never",
            "containers": [
                {
                    "image": "i",
                    "env": [
                        {"name": "RAY_JOB_SUBMISSION_ID", "value": "stale"},
                        {"name": "KEEP", "value": "1"},
                    ],
                }
            ],
        }
    }
    # The container has no name, which nothing here reads: Go's zero value completes it.
    spec = go_zero_container_names(job_spec(submitterPodTemplate=user))
    env = template_for(spec)["spec"]["containers"][0]["env"]
    names = [e["name"] for e in env]
    assert names == ["KEEP", "PYTHONUNBUFFERED", "RAY_DASHBOARD_ADDRESS", "RAY_JOB_SUBMISSION_ID"]
    assert env[-1]["value"] == "train-0123abcd"


def test_token_auth_env() -> None:
    spec = job_spec()
    spec["rayClusterSpec"]["authOptions"] = {"mode": "token"}
    env = template_for(spec)["spec"]["containers"][0]["env"]
    assert env[-2:] == [
        {"name": "RAY_AUTH_MODE", "value": "token"},
        {
            "name": "RAY_AUTH_TOKEN",
            "valueFrom": {"secretKeyRef": {"name": "train", "key": "auth_token"}},
        },
    ]
    spec["rayClusterSpec"]["authOptions"] = {"mode": "token", "secretName": "tok"}
    env = template_for(spec)["spec"]["containers"][0]["env"]
    assert env[-1]["valueFrom"]["secretKeyRef"]["name"] == "tok"
