"""Shared builders for the submitter's tests (raygang.kuberay.submitter): specs and commands.

The RayJob specs are KubeRay's own test shapes (``rayJobTemplate()`` in KubeRay v1.7.0's
``common/job_test.go``) or a small complete one, written as plain mappings; the submitter
reads the typed RayJob, which :func:`typed_job` makes of them.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from raygang.kuberay.submitter import build_submit_command, submitter_pod_template
from raygang.rayjob.spec import RayJobInput, parse_rayjob

KUBERAY_ENTRYPOINT = "echo no quote 'single quote' \"double quote\""


def kuberay_template_job() -> dict[str, Any]:
    """KubeRay's rayJobTemplate() (common/job_test.go) as a RayJob spec mapping."""
    return {
        "runtimeEnvYAML": "test: test",
        "metadata": {"testKey": "testValue"},
        "rayClusterSpec": {"rayVersion": "2.6.0"},
        "entrypoint": KUBERAY_ENTRYPOINT,
        "entrypointNumCpus": 1,
        "entrypointNumGpus": 0.5,
        "entrypointResources": '{"Custom_1": 1, "Custom_2": 5.5}',
    }


def kuberay_vector_command(**overrides: Any) -> list[str]:
    spec = kuberay_template_job()
    kwargs: dict[str, Any] = {
        "mode": "K8sJobMode",
        "address": "http://127.0.0.1:8265",
        "submission_id": "testJobId",
        "entrypoint": spec["entrypoint"],
        "runtime_env_yaml": spec["runtimeEnvYAML"],
        "metadata": spec["metadata"],
        "entrypoint_num_cpus": spec["entrypointNumCpus"],
        "entrypoint_num_gpus": spec["entrypointNumGpus"],
        "entrypoint_resources": spec["entrypointResources"],
        "ray_version": "2.6.0",
    }
    kwargs.update(overrides)
    return build_submit_command(**kwargs)


def typed_job(spec: Mapping[str, Any], name: str = "train", namespace: str = "ml") -> RayJobInput:
    """The RayJob the submitter reads, around ``spec`` exactly as the test writes it.

    Its structure is validated (:func:`parse_rayjob`: the typed model and the manifest as
    written, side by side), not KubeRay's other rules, which have their own tests: KubeRay's
    Go tests, too, hand the submitter typed structs that no validation has seen.
    """
    doc = {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }
    return parse_rayjob(doc, "test")


def go_zero_container_names(spec: Mapping[str, Any]) -> dict[str, Any]:
    """``spec`` with ``name: ""`` in the head's and the submitter template's containers that
    have no name, and nothing else changed.

    KubeRay's Go tests write containers as ``corev1.Container{Image: ...}``, whose ``Name``
    is Go's zero value, ``""``. The typed model, like the API server, requires the field to
    be written, so a vector without it is completed with the value Go gives it; no vector
    that needs this asserts anything about the name.
    """
    out = copy.deepcopy(dict(spec))
    head = out.get("rayClusterSpec", {}).get("headGroupSpec", {}).get("template", {})
    for template in (head, out.get("submitterPodTemplate") or {}):
        for container in template.get("spec", {}).get("containers", []):
            container.setdefault("name", "")
    return out


def job_spec(**overrides: Any) -> dict[str, Any]:
    """A small, complete RayJob spec."""
    spec: dict[str, Any] = {
        "entrypoint": "python /app/main.py --epochs 3",
        "runtimeEnvYAML": "pip:\n  - requests==2.32.3\nenv_vars:\n  MODE: train\n",
        "rayClusterSpec": {
            "rayVersion": "2.60.0",
            "headGroupSpec": {
                "rayStartParams": {},
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "ray-head",
                                "image": "rayproject/ray:2.60.0",
                                "resources": {"requests": {"cpu": "1", "memory": "2Gi"}},
                            }
                        ]
                    }
                },
            },
            "workerGroupSpecs": [
                {
                    "groupName": "gpu",
                    "replicas": 2,
                    "minReplicas": 2,
                    "maxReplicas": 2,
                    "template": {"spec": {"containers": [{"name": "w", "image": "r:1"}]}},
                }
            ],
        },
    }
    spec.update(overrides)
    return spec


def template_for(spec: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """The pod template of the RayJob ``train`` in namespace ``ml`` with ``spec``."""
    args: dict[str, Any] = {
        "job": typed_job(spec),
        "submission_id": "train-0123abcd",
        "dashboard_address": "train-head-svc.ml.svc.cluster.local:8265",
        "labels": {"volcano.sh/queue-name": "q"},
    }
    args.update(kwargs)
    return submitter_pod_template(**args)
