"""K8sJobMode: the submitter Job and its pod template.

Follows ``getSubmitterTemplate`` and ``createNewK8sJob``
(``ray-operator/controllers/ray/rayjob_controller.go``) and KubeRay's labels
(``ray-operator/controllers/ray/utils/constant.go``): the user's ``submitterPodTemplate``
or a default one, the submit command unless its first container has its own, and the
least-privilege defaults of :mod:`.security` on every pod.

What is decided is read from the typed RayJob; the user's ``submitterPodTemplate`` is
rendered from a copy of the manifest as written, so every field of it passes through,
modelled or not.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from raygang.kube.core import Container, PodSpec
from raygang.kuberay.submitter._errors import SubmitterError
from raygang.kuberay.submitter.codemount import CodeMount, code_volumes
from raygang.kuberay.submitter.command import K8S_JOB_MODE, submit_tokens
from raygang.kuberay.submitter.container import (
    configure_container,
    default_submitter_container,
    head_image,
)
from raygang.kuberay.submitter.security import harden_pod
from raygang.rayjob.spec import RayJobInput

#: ``createNewK8sJob``: at most three attempts unless ``spec.submitterConfig.backoffLimit``.
DEFAULT_SUBMITTER_BACKOFF_LIMIT: Final = 2


_LABEL_CR_NAME: Final = "ray.io/originated-from-cr-name"


_LABEL_CRD: Final = "ray.io/originated-from-crd"


_LABEL_CREATED_BY: Final = "app.kubernetes.io/created-by"


# KubeRay writes "kuberay-operator" here. raygang, not the operator, creates these objects;
# claiming otherwise would mislead tools that select on the label (and people reading it).
CREATED_BY: Final = "raygang"


def _plain(value: Any) -> Any:
    """A deep copy with every Mapping turned into a dict and every list/tuple into a list."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return copy.deepcopy(value)


def _kuberay_labels(job_name: str) -> dict[str, str]:
    return {_LABEL_CR_NAME: job_name, _LABEL_CRD: "RayJob", _LABEL_CREATED_BY: CREATED_BY}


def submitter_pod_template(
    *,
    job: RayJobInput,
    submission_id: str,
    dashboard_address: str,
    labels: Mapping[str, str],
    fail_on_job_failure: bool = False,
    code: CodeMount | None = None,
) -> dict[str, Any]:
    """The submitter Job's pod template (KubeRay ``getSubmitterTemplate``, K8sJobMode).

    ``spec.submitterPodTemplate`` is deep-copied when set and everything the user wrote is
    kept; if its first container has a ``command``, its command and args are left alone
    (the user then runs the submission, e.g. with ``$RAY_JOB_SUBMISSION_ID``). Otherwise a
    default template with one :func:`default_submitter_container` is used. Either way the
    first container gets ``PYTHONUNBUFFERED``, ``RAY_DASHBOARD_ADDRESS`` and
    ``RAY_JOB_SUBMISSION_ID`` (and Ray token-auth env when ``authOptions.mode`` is token).

    Beyond KubeRay: every submitter pod, the user's template too, gets
    ``automountServiceAccountToken: false`` (the submitter talks to the Ray dashboard, never
    to the Kubernetes API) and :func:`restricted_security_context` on its containers, except
    where the template sets these fields itself (see :func:`harden_pod`); a user template
    without ``restartPolicy`` gets ``Never`` (a Job rejects the pod default, ``Always``).

    Args:
        job: the RayJob (its name labels the pod).
        submission_id: from :func:`submission_id`.
        dashboard_address: from :func:`dashboard_url` (no scheme).
        labels: extra pod labels (e.g. Volcano queue); they override the template's own, and
            the ``ray.io/originated-from-*`` and ``created-by`` labels override both.
        fail_on_job_failure: see :func:`build_submit_command`.
        code: the job's code package (:mod:`.codemount`): its volumes are added to the pod
            and mounted in the first container, and the submit command unpacks it.

    Returns:
        A ``PodTemplateSpec`` dict.

    Raises:
        SubmitterError: see :func:`build_submit_command`; also a head container without an
            image when the default template is used, or volumes named as the code package's.
    """
    spec = job.job.spec
    typed_pod: PodSpec | None = None
    if spec.submitter_pod_template is not None:
        typed_pod = spec.submitter_pod_template.spec
        # The model holds the template (a spec with at least one container); the copy of
        # it as written is what is rendered.
        template: dict[str, Any] = _plain(job.spec_view()["submitterPodTemplate"])
        template["spec"].setdefault("restartPolicy", "Never")
    else:
        template = {
            "spec": {
                "containers": [default_submitter_container(head_image(spec))],
                "restartPolicy": "Never",
            }
        }
    first = template["spec"]["containers"][0]
    typed_first: Container | None = typed_pod.containers[0] if typed_pod is not None else None
    # KubeRay builds the submit command only for a container without its own command; a
    # user's own command (say, a light-weight submitter) may run without spec.entrypoint.
    tokens = (
        None
        if typed_first is not None and typed_first.command
        else submit_tokens(
            mode=K8S_JOB_MODE,
            spec=spec,
            submission_id=submission_id,
            address=dashboard_address,
            sidecar_restart=False,
            fail_on_job_failure=fail_on_job_failure,
            code=code,
        )
    )
    configure_container(
        first,
        env=(typed_first.env or []) if typed_first is not None else [],
        tokens=tokens,
        env_dashboard_address=dashboard_address.removeprefix("http://"),
        submission_id=submission_id,
        spec=spec,
        cluster_name=job.name,
    )
    if code is not None:
        _mount_code(template["spec"], first, code, typed_pod, typed_first)
    harden_pod(template["spec"])
    # A user template's metadata is a mapping (the model read it); its labels pass through.
    metadata = template.setdefault("metadata", {})
    own_labels = metadata.get("labels") or {}
    metadata["labels"] = {**own_labels, **labels, **_kuberay_labels(job.name)}
    return template


def _mount_code(
    pod_spec: dict[str, Any],
    container: dict[str, Any],
    code: CodeMount,
    typed_pod: PodSpec | None,
    typed_container: Container | None,
) -> None:
    """Add the package's volumes to the pod and their mounts to the submitter container.

    The names already taken are the typed model's (none for the default template); the
    entries are appended to the rendered copy's lists.
    """
    volumes, mounts = code_volumes(code)
    have_volumes = (typed_pod.volumes if typed_pod is not None else None) or []
    have_mounts = (typed_container.volume_mounts if typed_container is not None else None) or []
    for parent, key, have, added in (
        (pod_spec, "volumes", have_volumes, volumes),
        (container, "volumeMounts", have_mounts, mounts),
    ):
        names = {str(v.get("name")) for v in have}
        clash = names & {str(v["name"]) for v in added}
        if clash:
            raise SubmitterError(
                f"the submitter pod already has {key} named {sorted(clash)}, which raygang "
                "uses for the code package (raygang.dev/working-dir)"
            )
        parent[key] = [*(parent.get(key) or []), *added]


def submitter_job(
    *,
    job: RayJobInput,
    submission_id: str,
    dashboard_address: str,
    labels: Mapping[str, str],
    fail_on_job_failure: bool = False,
    code: CodeMount | None = None,
) -> dict[str, Any]:
    """The batch/v1 submitter Job (KubeRay ``createNewK8sJob``), without owner references.

    Named like the RayJob, labelled ``ray.io/originated-from-cr-name``,
    ``ray.io/originated-from-crd: RayJob`` and ``app.kubernetes.io/created-by: raygang``
    (KubeRay writes ``kuberay-operator``; raygang is not the operator). ``backoffLimit`` is
    ``spec.submitterConfig.backoffLimit`` or 2. The caller adds owner references and the
    Volcano annotations.

    Args:
        job: the RayJob: the Job takes its name and namespace.
        submission_id: from :func:`submission_id`.
        dashboard_address: from :func:`dashboard_url`.
        labels: extra pod-template labels, see :func:`submitter_pod_template`.
        fail_on_job_failure: see :func:`build_submit_command`.
        code: see :func:`submitter_pod_template`.

    Returns:
        A Job manifest dict.

    Raises:
        SubmitterError: a negative ``backoffLimit`` or see :func:`submitter_pod_template`.
    """
    config = job.job.spec.submitter_config
    backoff = config.backoff_limit if config is not None else None
    if backoff is None:
        backoff = DEFAULT_SUBMITTER_BACKOFF_LIMIT
    elif backoff < 0:
        raise SubmitterError(
            f"spec.submitterConfig.backoffLimit must be a non-negative integer, got {backoff!r}"
        )
    template = submitter_pod_template(
        job=job,
        submission_id=submission_id,
        dashboard_address=dashboard_address,
        labels=labels,
        fail_on_job_failure=fail_on_job_failure,
        code=code,
    )
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": job.name,
            "namespace": job.namespace,
            "labels": _kuberay_labels(job.name),
        },
        "spec": {"backoffLimit": backoff, "template": template},
    }
