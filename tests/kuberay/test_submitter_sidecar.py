"""raygang.kuberay.submitter.sidecar: the SidecarMode submitter container."""

from __future__ import annotations

import subprocess

import pytest
from raygang.kube.errors import SpecError
from raygang.kuberay.submitter import SubmitterError, sidecar_container

from tests.builders import BASH
from tests.kuberay.conftest import job_spec, typed_job


def test_sidecar_custom_dashboard_port_in_health_url() -> None:
    spec = job_spec(submissionMode="SidecarMode")
    head = spec["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["ports"] = [{"name": "dashboard", "containerPort": 9000}]
    container = sidecar_container(job=typed_job(spec), submission_id="sid-1")
    args = container["args"][0]
    assert "urlopen('http://localhost:9000/api/gcs_healthz'" in args
    assert "ray job submit --address http://127.0.0.1:9000 --runtime-env-json" in args
    assert "--no-wait" not in args and "ray job logs" not in args and "if !" not in args


def test_sidecar_container_matches_kuberay_defaults() -> None:
    sidecar = typed_job(job_spec(submissionMode="SidecarMode"))
    container = sidecar_container(job=sidecar, submission_id="s-1")
    assert container["name"] == "ray-job-submitter"
    assert container["image"] == "rayproject/ray:2.60.0"
    assert container["resources"]["requests"] == {"cpu": "500m", "memory": "200Mi"}
    assert container["resources"]["limits"] == {"cpu": "1", "memory": "1Gi"}
    assert container["command"] == ["/bin/bash", "-ce", "--"]
    assert container["env"] == [
        {"name": "PYTHONUNBUFFERED", "value": "1"},
        {"name": "RAY_DASHBOARD_ADDRESS", "value": ""},
        {"name": "RAY_JOB_SUBMISSION_ID", "value": "s-1"},
    ]
    assert "restartPolicy" not in container
    assert "localhost:8265/api/gcs_healthz" in container["args"][0]
    restarting = sidecar_container(job=sidecar, submission_id="s-1", sidecar_restart=True)
    assert restarting["restartPolicy"] == "OnFailure"
    assert "if ! ray job status --address http://127.0.0.1:8265 s-1" in restarting["args"][0]


def test_sidecar_rejects_what_kuberay_validation_rejects() -> None:
    # A template without containers is no pod template: the typed model refuses it first.
    with pytest.raises(SpecError, match=r"spec\.submitterPodTemplate\.spec\.containers"):
        typed_job(job_spec(submitterPodTemplate={"spec": {}}))
    template = {"spec": {"containers": [{"name": "c"}]}}
    with pytest.raises(SubmitterError, match="SidecarMode doesn't support SubmitterPodTemplate"):
        sidecar_container(job=typed_job(job_spec(submitterPodTemplate=template)), submission_id="s")
    config = typed_job(job_spec(submitterConfig={"backoffLimit": 1}))
    with pytest.raises(SubmitterError, match="SidecarMode doesn't support SubmitterConfig"):
        sidecar_container(job=config, submission_id="s")
    spec = job_spec()
    spec["rayClusterSpec"]["authOptions"] = {"mode": "token"}
    with pytest.raises(SubmitterError, match=r"the RayJob's metadata\.name"):
        sidecar_container(job=typed_job(spec, name=""), submission_id="s")
    env = sidecar_container(job=typed_job(spec, name="train"), submission_id="s")["env"]
    assert env[-1]["valueFrom"]["secretKeyRef"]["name"] == "train"


@pytest.mark.parametrize("mode", ["sidecar", "sidecar-restart"])
def test_sidecar_scripts_seal_the_entrypoint_too(mode: str) -> None:
    spec = job_spec(entrypoint="python a.py ; fi ; echo X # note")
    spec.pop("runtimeEnvYAML")
    container = sidecar_container(
        job=typed_job(spec, name="j"),
        submission_id="s-1",
        sidecar_restart=mode == "sidecar-restart",
    )
    (script,) = container["args"]
    subprocess.run([BASH, "-n", "-c", script], check=True, timeout=30)
    assert " eval 'ray job submit --address http://127.0.0.1:8265 " in script
