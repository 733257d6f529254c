"""raygang.kuberay.submitter.job: the K8sJobMode pod template and the submitter Job.

Expected values marked "KubeRay" are copied from KubeRay v1.7.0's Go tests
(``rayjob_controller_unit_test.go``).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from raygang.kube.errors import SpecError
from raygang.kuberay import submitter as sm
from raygang.kuberay.submitter import (
    CodeMount,
    SubmitterError,
    build_submit_command,
    submit_shell,
    submitter_job,
    submitter_pod_template,
)

from tests.kuberay.conftest import (
    KUBERAY_ENTRYPOINT,
    go_zero_container_names,
    job_spec,
    template_for,
    typed_job,
)

# KubeRay TestGetSubmitterTemplate: expectedK8sJobModeArgs[0], byte for byte.
KUBERAY_TEMPLATE_ARGS0 = (
    'until python -c "import urllib.request; r=urllib.request.urlopen('
    "'http://test-url/api/gcs_healthz', timeout=10); exit(0 if b'success' in r.read() else 1)\""
    ' >/dev/null 2>&1 ; do echo "Waiting for Ray Dashboard GCS to become healthy at '
    'http://test-url ..." ; sleep 2 ; done ; if ! ray job status --address http://test-url '
    "test-job-id >/dev/null 2>&1 ; then ray job submit --address http://test-url --no-wait "
    "--submission-id test-job-id -- echo no quote 'single quote' \"double quote\" ; fi ; "
    "ray job logs --address http://test-url --follow test-job-id"
)

# The same script as raygang writes it: KubeRay's `ray job submit ... -- ENTRYPOINT`, word for
# word, sealed in one single-quoted eval word so the entrypoint cannot reach the script.
SEALED_TEMPLATE_ARGS0 = KUBERAY_TEMPLATE_ARGS0.replace(
    "then ray job submit --address http://test-url --no-wait --submission-id test-job-id -- "
    "echo no quote 'single quote' \"double quote\" ; fi",
    "then eval 'ray job submit --address http://test-url --no-wait --submission-id test-job-id "
    "-- echo no quote '\\''single quote'\\'' \"double quote\"' ; fi",
)


def test_submitter_template_args_match_kuberay_byte_for_byte() -> None:
    # KubeRay TestGetSubmitterTemplate, tests 2 and 3: dashboardURL "test-url", no scheme.
    tokens = build_submit_command(
        mode="K8sJobMode",
        address="test-url",
        submission_id="test-job-id",
        entrypoint=KUBERAY_ENTRYPOINT,
    )
    assert " ".join(tokens) == KUBERAY_TEMPLATE_ARGS0  # KubeRay's tokens, unchanged
    assert SEALED_TEMPLATE_ARGS0 != KUBERAY_TEMPLATE_ARGS0
    assert submit_shell(tokens) == SEALED_TEMPLATE_ARGS0

    spec = {
        "entrypoint": KUBERAY_ENTRYPOINT,
        "rayClusterSpec": {
            "headGroupSpec": {
                "template": {"spec": {"containers": [{"image": "rayproject/ray:custom-version"}]}}
            }
        },
    }
    kwargs: dict[str, Any] = {
        "submission_id": "test-job-id",
        "dashboard_address": "test-url",
        "labels": {},
    }
    # KubeRay's containers have no name (Go's zero value, ""): the typed model needs it
    # written, and nothing here reads it (go_zero_container_names).
    default = submitter_pod_template(
        job=typed_job(go_zero_container_names(spec), name="job", namespace="ns"), **kwargs
    )
    container = default["spec"]["containers"][0]
    assert container["command"] == ["/bin/bash", "-ce", "--"]
    assert container["args"] == [SEALED_TEMPLATE_ARGS0]
    assert container["image"] == "rayproject/ray:custom-version"

    # Test 2: a user template whose container has an empty command gets the default one.
    user = dict(spec, submitterPodTemplate={"spec": {"containers": [{"command": []}]}})
    job = typed_job(go_zero_container_names(user), name="job", namespace="ns")
    container = submitter_pod_template(job=job, **kwargs)["spec"]["containers"][0]
    assert container["command"] == ["/bin/bash", "-ce", "--"]
    assert container["args"] == [SEALED_TEMPLATE_ARGS0]


def test_default_template_container_resources_security_and_env() -> None:
    template = template_for(job_spec())
    pod = template["spec"]
    assert pod["restartPolicy"] == "Never"
    assert pod["automountServiceAccountToken"] is False
    (container,) = pod["containers"]
    assert container["name"] == "ray-job-submitter"
    assert container["image"] == "rayproject/ray:2.60.0"
    assert container["resources"] == {
        "limits": {"cpu": "1", "memory": "1Gi"},
        "requests": {"cpu": "500m", "memory": "200Mi"},
    }
    assert container["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    assert container["command"] == ["/bin/bash", "-ce", "--"]
    assert container["env"] == [
        {"name": "PYTHONUNBUFFERED", "value": "1"},
        {"name": "RAY_DASHBOARD_ADDRESS", "value": "train-head-svc.ml.svc.cluster.local:8265"},
        {"name": "RAY_JOB_SUBMISSION_ID", "value": "train-0123abcd"},
    ]
    (args0,) = container["args"]
    assert args0.startswith("until python -c")
    assert "--submission-id train-0123abcd -- python /app/main.py --epochs 3' ; fi ;" in args0
    assert args0.endswith(
        "ray job logs --address http://train-head-svc.ml.svc.cluster.local:8265 "
        "--follow train-0123abcd"
    )
    assert template["metadata"]["labels"] == {
        "volcano.sh/queue-name": "q",
        "ray.io/originated-from-cr-name": "train",
        "ray.io/originated-from-crd": "RayJob",
        "app.kubernetes.io/created-by": "raygang",
    }
    # The module's defaults are not shared with the manifest (callers may mutate it).
    container["resources"]["limits"]["cpu"] = "9"
    assert sm.DEFAULT_SUBMITTER_LIMITS["cpu"] == "1"


def test_user_template_with_command_is_kept_untouched() -> None:
    user_template = {
        "metadata": {"labels": {"team": "ml", "volcano.sh/queue-name": "mine"}},
        "spec": {
            "restartPolicy": "OnFailure",
            "serviceAccountName": "submitter",
            "containers": [
                {
                    "name": "custom",
                    "image": "me/submitter:1",
                    "command": ["my-submit"],
                    "args": ["--flag"],
                    "env": [{"name": "FOO", "value": "bar"}],
                    "resources": {"requests": {"cpu": "100m"}},
                }
            ],
        },
    }
    spec = job_spec(submitterPodTemplate=user_template)
    original = copy.deepcopy(user_template)
    job = typed_job(spec)
    template = template_for(spec, job=job)
    assert job.spec_view()["submitterPodTemplate"] == original  # the manifest is not mutated
    pod = template["spec"]
    assert pod["restartPolicy"] == "OnFailure"
    assert pod["serviceAccountName"] == "submitter"
    # Least privilege for the user's template too: only fields it leaves unset are added.
    assert pod["automountServiceAccountToken"] is False
    (container,) = pod["containers"]
    assert container["command"] == ["my-submit"]
    assert container["args"] == ["--flag"]
    assert container["image"] == "me/submitter:1"
    assert container["resources"] == {"requests": {"cpu": "100m"}}
    assert container["securityContext"] == sm.restricted_security_context()
    assert [e["name"] for e in container["env"]] == [
        "FOO",
        "PYTHONUNBUFFERED",
        "RAY_DASHBOARD_ADDRESS",
        "RAY_JOB_SUBMISSION_ID",
    ]
    # Passed-in labels override the template's own; KubeRay's three override both.
    assert template["metadata"]["labels"]["team"] == "ml"
    assert template["metadata"]["labels"]["volcano.sh/queue-name"] == "q"


def test_user_template_without_command_or_restart_policy() -> None:
    spec = job_spec(submitterPodTemplate={"spec": {"containers": [{"name": "c", "image": "i"}]}})
    pod = template_for(spec)["spec"]
    assert pod["restartPolicy"] == "Never"  # a Job rejects the pod default "Always"
    assert pod["containers"][0]["command"] == ["/bin/bash", "-ce", "--"]
    assert pod["containers"][0]["args"][0].startswith("until python -c")


def test_submitter_job_manifest_and_backoff_limit() -> None:
    kwargs: dict[str, Any] = {
        "submission_id": "train-0123abcd",
        "dashboard_address": "train-head-svc.ml.svc.cluster.local:8265",
        "labels": {},
    }
    job = submitter_job(job=typed_job(job_spec()), **kwargs)
    assert job["apiVersion"] == "batch/v1" and job["kind"] == "Job"
    assert job["metadata"] == {
        "name": "train",
        "namespace": "ml",
        "labels": {
            "ray.io/originated-from-cr-name": "train",
            "ray.io/originated-from-crd": "RayJob",
            "app.kubernetes.io/created-by": "raygang",
        },
    }
    assert "ownerReferences" not in job["metadata"] and "annotations" not in job["metadata"]
    assert job["spec"]["backoffLimit"] == 2
    assert job["spec"]["template"] == template_for(job_spec(), labels={})
    for limit in (0, 5):
        spec = job_spec(submitterConfig={"backoffLimit": limit})
        job = submitter_job(job=typed_job(spec), **kwargs)
        assert job["spec"]["backoffLimit"] == limit
    negative = typed_job(job_spec(submitterConfig={"backoffLimit": -1}))
    with pytest.raises(SubmitterError, match="backoffLimit must be a non-negative integer"):
        submitter_job(job=negative, **kwargs)
    # Not a whole number: the typed model refuses it, before the submitter could read it.
    for bad in (True, "2"):
        with pytest.raises(SpecError, match=r"spec\.submitterConfig\.backoffLimit"):
            typed_job(job_spec(submitterConfig={"backoffLimit": bad}))


def test_template_errors_are_clear() -> None:
    spec = job_spec()
    del spec["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["image"]
    with pytest.raises(SubmitterError, match=r"containers\[0\]\.image is required"):
        template_for(spec)
    # A template without containers: the typed model refuses it, before the submitter.
    with pytest.raises(SpecError, match=r"spec\.submitterPodTemplate\.spec\.containers"):
        typed_job(job_spec(submitterPodTemplate={"spec": {"containers": []}}))


def test_code_package_volumes_join_the_templates_own() -> None:
    # The names already taken are read from the typed template; the entries are appended
    # to the copy of it as written. (Outputs checked against the plain-spec reader.)
    code = CodeMount(sha256="0" * 64, config_maps=("train-code-0",))
    ours = ["raygang-code-package", "raygang-code"]
    user = {
        "spec": {
            "volumes": [{"name": "data", "emptyDir": {}}],
            "containers": [
                {
                    "name": "c",
                    "image": "i",
                    "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                }
            ],
        }
    }
    for spec, before in ((job_spec(submitterPodTemplate=user), ["data"]), (job_spec(), [])):
        pod = template_for(spec, code=code)["spec"]
        assert [v["name"] for v in pod["volumes"]] == [*before, *ours]
        assert [m["name"] for m in pod["containers"][0]["volumeMounts"]] == [*before, *ours]
    clashes = [
        ("volumes", {"volumes": [{"name": "raygang-code", "emptyDir": {}}]}, {}),
        ("volumeMounts", {}, {"volumeMounts": [{"name": ours[0], "mountPath": "/x"}]}),
    ]
    for key, pod_fields, container_fields in clashes:
        template = {
            "spec": {"containers": [{"name": "c", "image": "i", **container_fields}], **pod_fields}
        }
        with pytest.raises(SubmitterError, match=f"already has {key} named"):
            template_for(job_spec(submitterPodTemplate=template), code=code)
