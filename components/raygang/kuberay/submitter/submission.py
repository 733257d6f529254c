"""The Ray submission ID: ``spec.jobId``, or derived from the spec so a re-run submits once.

KubeRay's RayJob controller (``ray-operator/controllers/ray/rayjob_controller.go``) appends
random characters to the job name, a new ID on every retry; raygang renders the ID ahead of
time and derives it from what defines the run. Either way the ID reaches the submitter's
shell unquoted, so only IDs that need no quoting are accepted.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any, Final

from raygang.kuberay.submitter._bashsyntax import go_trim_space
from raygang.kuberay.submitter._errors import SubmitterError
from raygang.kuberay.submitter._goyaml import runtime_env_data
from raygang.kuberay.submitter.entrypoint_numbers import go_percent_f_float32
from raygang.rayjob.spec import RayJobInput

# A submission ID and the dashboard address are written into the shell unquoted, as KubeRay
# does. Rather than quote them (which would change the token vector), only values that need no
# quoting are accepted. The ID must not start with "-", or click would read it as an option.
_SUBMISSION_ID_RE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


_HASH_HEX_CHARS: Final = 8


def is_safe_submission_id(value: object) -> bool:
    """Whether ``value`` can go into the submitter's shell unquoted as a submission ID."""
    return isinstance(value, str) and _SUBMISSION_ID_RE.fullmatch(value) is not None


def check_submission_id(value: str) -> str:
    if not is_safe_submission_id(value):
        raise SubmitterError(
            f"submission ID {value!r} is not accepted: it is written into the submitter's shell "
            "command unquoted, so it must be 1-128 characters of [A-Za-z0-9._-] starting with a "
            "letter or digit"
        )
    return value


def _canonical(value: Any) -> Any:
    """Make numerically equal values hash alike: 2.0 and 2 are the same replica count."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value  # most leaves: no ABC check (the isinstance below is slow for them)
    if kind is dict:
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def submission_id(job: RayJobInput, code: str | None = None, resubmit: int = 0) -> str:
    """The Ray submission ID for this RayJob spec: ``spec.jobId``, or derived from the spec.

    KubeRay appends 5 random characters, so every operator retry gets a new ID. raygang
    renders the ID ahead of time and must give a re-run of the same spec the same ID, so
    that a re-created submitter finds the job already submitted (``ray job status``) and only
    follows its logs. The derived form is ``<job_name>-<8 hex>``, the first 32 bits of the
    SHA-256 of a canonical JSON of what defines the run: entrypoint (trimmed), runtime env
    (parsed, so comments and formatting do not count), metadata, entrypoint CPUs/GPUs (as
    the command formats them), entrypoint resources (parsed when it is JSON) and the
    RayCluster spec. Key order never matters. 47 + 1 + 8 = 56 characters at most, since
    KubeRay limits RayJob names to 47.

    Beyond that (issue 28): the code package's SHA-256, when the job ships one, so changed
    code is a new submission; and the ``raygang.dev/resubmit`` counter, when above 0, so the
    same code and spec can run again under a new ID. Neither is in the hashed payload when
    unset, so the IDs of jobs without them are what they were.

    The values come from the typed model; two come from the manifest as written, so that
    no job's ID changes: the RayCluster spec, hashed whole (fields the model does not hold,
    volumes or a newer KubeRay's, count too), and whether ``entrypoint`` is written at all
    (the model reads a missing one as ``""``, and the ID of a job without one has always
    hashed ``null``).

    Args:
        job: the RayJob; the ID starts with its ``metadata.name``.
        code: the code package's SHA-256, if the job ships one.
        resubmit: the ``raygang.dev/resubmit`` counter (0 when unset).

    Returns:
        The submission ID.

    Raises:
        SubmitterError: ``spec.jobId`` or the job's name is not a safe ID, or the runtime env
            YAML cannot be converted.
    """
    spec, raw = job.job.spec, job.spec_view()
    if spec.job_id:
        return check_submission_id(spec.job_id)
    resources = spec.entrypoint_resources
    try:
        resources_data: Any = json.loads(resources) if resources is not None else None
    except ValueError:
        resources_data = resources
    runtime_env = spec.runtime_env_yaml
    payload = {
        "entrypoint": go_trim_space(spec.entrypoint) if "entrypoint" in raw else None,
        "runtimeEnv": runtime_env_data(runtime_env) if runtime_env is not None else None,
        "metadata": spec.metadata,
        "entrypointNumCpus": go_percent_f_float32(spec.entrypoint_num_cpus, "entrypointNumCpus"),
        "entrypointNumGpus": go_percent_f_float32(spec.entrypoint_num_gpus, "entrypointNumGpus"),
        "entrypointResources": resources_data or None,
        "rayClusterSpec": raw.get("rayClusterSpec"),
    }
    if code is not None:
        payload["codePackage"] = code
    if resubmit:
        payload["resubmit"] = resubmit
    try:
        canonical = json.dumps(
            {"v": 1, "run": _canonical(payload)},
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=True,
            allow_nan=False,
        )
    except (TypeError, ValueError) as exc:
        raise SubmitterError(
            f"the RayJob spec cannot be serialized to derive a submission ID: {exc}"
        ) from None
    digest = hashlib.sha256(canonical.encode("ascii")).hexdigest()[:_HASH_HEX_CHARS]
    return check_submission_id(f"{job.name}-{digest}")
