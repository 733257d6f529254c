"""SidecarMode: the submitter container appended to the head pod.

Follows ``getSubmitterContainer`` (``ray-operator/controllers/ray/rayjob_controller.go``):
the default submitter container with the SidecarMode command, which probes the dashboard on
``localhost`` since it shares the head's network namespace.
"""

from __future__ import annotations

from typing import Any

from raygang.kuberay.submitter._errors import SubmitterError
from raygang.kuberay.submitter.command import SIDECAR_MODE, submit_tokens
from raygang.kuberay.submitter.container import (
    configure_container,
    default_submitter_container,
    head_image,
    head_pod,
)
from raygang.kuberay.submitter.dashboard import dashboard_port
from raygang.rayjob.spec import RayJobInput
from raygang.rayjob.validate import SIDECAR_NO_CONFIG, SIDECAR_NO_TEMPLATE


def sidecar_container(
    *,
    job: RayJobInput,
    submission_id: str,
    sidecar_restart: bool = False,
) -> dict[str, Any]:
    """The SidecarMode submitter container to append to the head pod (``getSubmitterContainer``).

    The default submitter container with the SidecarMode command (probing
    ``localhost:<dashboard port>``) and env; ``RAY_DASHBOARD_ADDRESS`` is empty, as in
    KubeRay, where the dashboard URL is not known yet when the cluster is built. The caller
    also sets the head pod's ``restartPolicy`` to ``Never``.

    The port is the head container's ``dashboard`` port (8265 without declared ports). Unlike
    KubeRay's ``FindContainerPort``, declared ports without a ``dashboard`` one are an error
    here: KubeRay would fall back to 8265 for the command but then fail to find the Service's
    dashboard port and never start the job.

    Args:
        job: the RayJob; its name (= the RayCluster's) names the token Secret for Ray token
            auth without ``authOptions.secretName``.
        submission_id: from :func:`submission_id`.
        sidecar_restart: as KubeRay's ``SidecarSubmitterRestart`` gate: guard against
            resubmission and restart the container ``OnFailure`` (Kubernetes >= 1.35).

    Returns:
        A container dict.

    Raises:
        SubmitterError: ``submitterPodTemplate`` or ``submitterConfig`` is set (KubeRay's
            validation rejects both in SidecarMode), the job has no RayCluster spec, or see
            :func:`build_submit_command`.
    """
    spec = job.job.spec
    if spec.submitter_pod_template is not None:
        raise SubmitterError(SIDECAR_NO_TEMPLATE)
    if spec.submitter_config is not None:
        raise SubmitterError(SIDECAR_NO_CONFIG)
    port = dashboard_port(head_pod(spec))
    tokens = submit_tokens(
        mode=SIDECAR_MODE,
        spec=spec,
        submission_id=submission_id,
        address=f"127.0.0.1:{port}",
        sidecar_restart=sidecar_restart,
    )
    container = default_submitter_container(head_image(spec))
    configure_container(
        container,
        env=[],
        tokens=tokens,
        env_dashboard_address="",
        submission_id=submission_id,
        spec=spec,
        cluster_name=job.name,
    )
    if sidecar_restart:
        container["restartPolicy"] = "OnFailure"
    return container
