"""The ``ray job submit`` command line, token for token as KubeRay's ``BuildJobSubmitCommand``.

Follows ``ray-operator/controllers/ray/common/job.go`` (KubeRay v1.7.0): wait for the GCS
to be healthy, submit unless ``ray job status`` finds the job already submitted (the retry
guard), follow its logs; the runtime env, metadata and entrypoint resources are quoted with
:func:`._goquote.shell_quote` where KubeRay uses Go's ``strconv.Quote``, and the
values written unquoted (submission ID, dashboard address) are validated instead. The script
made of the tokens is :mod:`.script`'s.

KubeRay v1.5.0, which the real-engine tier runs, builds an older command: only SidecarMode
waits for the GCS (``wget`` on localhost), K8sJobMode submits at once, and a cluster without
``rayVersion`` is refused for its metadata. raygang renders the submitter Job itself, so the
tier runs this (v1.7.0) command against a v1.5.0 cluster.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from raygang.kuberay.submitter._bashsyntax import go_trim_space
from raygang.kuberay.submitter._errors import SubmitterError
from raygang.kuberay.submitter._goquote import go_json_dumps, shell_quote
from raygang.kuberay.submitter._goyaml import runtime_env_data, runtime_env_json
from raygang.kuberay.submitter.codemount import WORKING_DIR, CodeMount, unpack_command
from raygang.kuberay.submitter.entrypoint_numbers import go_percent_f_float32
from raygang.kuberay.submitter.submission import check_submission_id
from raygang.rayjob.spec import RayJobSpec

K8S_JOB_MODE: Final = "K8sJobMode"


SIDECAR_MODE: Final = "SidecarMode"


_GCS_HEALTH_PATH: Final = "api/gcs_healthz"


_GCS_HEALTH_TIMEOUT_SECONDS: Final = 10


# BasePythonHealthCommand: the head image always has python; curl/wget it may not have.
_PYTHON_HEALTH_COMMAND: Final = (
    "python -c \"import urllib.request; r=urllib.request.urlopen('{url}', timeout={timeout}); "
    "exit(0 if b'success' in r.read() else 1)\""
)


_METADATA_MIN_RAY_VERSION_MESSAGE: Final = (
    "the Ray version must be at least 2.6.0 to use the metadata field"
)


# No brackets (IPv6 literals are glob patterns to bash), no userinfo, no query: a Service
# host name or an IPv4 address, an optional port, an optional "http://".
_ADDRESS_RE: Final = re.compile(
    r"(?:http://)?[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?"
)


def _go_semver_at_least_2_6(ray_version: str) -> None:
    """KubeRay's Masterminds/semver ``>= 2.6.0`` check before ``--metadata-json``.

    Masterminds v3 coerces loosely (``2.5``, ``v2.5.0`` parse) and a version with a
    pre-release part never satisfies a constraint without one, so ``2.9.0-rc1`` is rejected
    too. Both are KubeRay's behaviour, kept so the same manifests are accepted.

    Raises:
        SubmitterError: the version does not parse, or is below 2.6.0.
    """
    ident = r"[0-9A-Za-z-]+"
    match = re.fullmatch(
        rf"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-({ident}(\.{ident})*))?(\+({ident}(\.{ident})*))?",
        ray_version,
    )
    if match is None:
        raise SubmitterError(
            f"failed to parse Ray version: {ray_version}: invalid semantic version"
        )
    major = int(match.group(1))
    minor = int(match.group(2)[1:]) if match.group(2) else 0
    patch = int(match.group(3)[1:]) if match.group(3) else 0
    prerelease = match.group(5) or ""
    for part in prerelease.split(".") if prerelease else ():
        if part.isdigit() and len(part) > 1 and part.startswith("0"):
            raise SubmitterError(
                f"failed to parse Ray version: {ray_version}: invalid prerelease string"
            )
    if prerelease or (major, minor, patch) < (2, 6, 0):
        raise SubmitterError(_METADATA_MIN_RAY_VERSION_MESSAGE)


def _http_address(address: str) -> str:
    if not isinstance(address, str) or not _ADDRESS_RE.fullmatch(address):
        raise SubmitterError(
            f"dashboard address {address!r} is not accepted: it is written into the submitter's "
            "shell command unquoted, so it must be host[:port] (letters, digits, '.', '-'), "
            "optionally prefixed with http://"
        )
    return address if address.startswith("http://") else "http://" + address


def _with_py_modules(runtime_env_yaml: str | None, code: CodeMount) -> str:
    """The runtime env JSON with the package's local ``py_modules`` (issue 28, beyond
    KubeRay): ``ray job submit`` uploads each local path itself (Ray's
    ``upload_py_modules_if_needed``), as it uploads ``--working-dir``.

    Raises:
        SubmitterError: the runtime env sets ``py_modules`` itself.
    """
    data = runtime_env_data(runtime_env_yaml) if runtime_env_yaml else None
    env = dict(data) if isinstance(data, Mapping) else {}
    if "py_modules" in env:
        raise SubmitterError(
            "runtimeEnvYAML sets py_modules, and raygang.dev/py-modules names some too: "
            "give them in one place"
        )
    env["py_modules"] = code.module_paths()
    return go_json_dumps(env)


def build_submit_command(
    *,
    mode: str,
    address: str,
    submission_id: str,
    entrypoint: str,
    runtime_env_yaml: str | None = None,
    metadata: Mapping[str, str] | None = None,
    entrypoint_num_cpus: float | None = None,
    entrypoint_num_gpus: float | None = None,
    entrypoint_resources: str | None = None,
    ray_version: str | None = None,
    sidecar_restart: bool = False,
    fail_on_job_failure: bool = False,
    code: CodeMount | None = None,
) -> list[str]:
    """The submitter's shell command as tokens, as KubeRay's ``BuildJobSubmitCommand``.

    K8sJobMode::

        until <python health probe> >/dev/null 2>&1 ; do echo "Waiting ..." ; sleep 2 ; done ;
        if ! ray job status --address A ID >/dev/null 2>&1 ; then
        ray job submit --address A --no-wait [flags] --submission-id ID -- ENTRYPOINT ;
        fi ; ray job logs --address A --follow ID

    These are KubeRay's tokens; :func:`submit_shell` makes the script of them, with
    ``ray job submit ... -- ENTRYPOINT`` sealed in one ``eval`` word.

    The ``if ! ray job status`` guard is what makes a retried pod follow the job instead of
    submitting it again (kuberay#2154, fixed by #2579). SidecarMode (the submitter container
    shares the head's network namespace) probes ``localhost``, and without
    ``sidecar_restart`` (KubeRay's ``SidecarSubmitterRestart`` gate) it has no guard, no
    ``--no-wait`` and no ``ray job logs``: ``ray job submit`` itself follows the job.

    The entrypoint is trimmed and is one token: shell code, as KubeRay's own tests use it
    (``echo no quote 'single quote' "double quote"``). The runtime env, metadata and
    resources are quoted with :func:`shell_quote`; see the module docstring.

    Args:
        mode: ``K8sJobMode`` or ``SidecarMode``.
        address: the dashboard address; ``http://`` is added when missing. In SidecarMode it
            is ``127.0.0.1:<dashboard port>``.
        submission_id: the Ray submission ID.
        entrypoint: ``spec.entrypoint``.
        runtime_env_yaml: ``spec.runtimeEnvYAML``.
        metadata: ``spec.metadata``.
        entrypoint_num_cpus: ``spec.entrypointNumCpus``; emitted as ``%f`` when > 0.
        entrypoint_num_gpus: ``spec.entrypointNumGpus``; emitted as ``%f`` when > 0.
        entrypoint_resources: ``spec.entrypointResources``, a JSON string passed through.
        ray_version: ``spec.rayClusterSpec.rayVersion``; metadata needs >= 2.6.0.
        sidecar_restart: SidecarMode as with KubeRay's ``SidecarSubmitterRestart`` gate.
        fail_on_job_failure: (K8sJobMode, beyond KubeRay) end with a status check that
            exits non-zero unless the Ray job SUCCEEDED. ``ray job logs --follow`` exits 0
            whatever the job's outcome; KubeRay learns the outcome by polling the dashboard
            from its operator, which raygang does not run, so without this check the
            submitter Job reports a failed Ray job as Complete.
        code: (beyond KubeRay, issue 28) the job's code package: the script starts by
            unpacking it (:func:`.codemount.unpack_command`) and ``ray job submit`` gets
            ``--working-dir`` with the unpacked directory.

    Returns:
        The tokens; ``" ".join`` them (:func:`submit_shell`) for the container's ``args[0]``.

    Raises:
        SubmitterError: unsupported mode (HTTPMode, InteractiveMode), an unsafe submission ID
            or address, an empty entrypoint, runtime env YAML that does not convert, metadata
            with a Ray version below 2.6.0, or values no shell word can carry.
    """
    http_address = _http_address(address)
    if mode == SIDECAR_MODE:
        port_match = re.search(r":(\d+)$", http_address[len("http://") :])
        if port_match is None:
            raise SubmitterError(
                f"SidecarMode needs the dashboard port in the address, got {address!r}"
            )
        health_url = f"http://localhost:{int(port_match.group(1))}/{_GCS_HEALTH_PATH}"
        guarded = sidecar_restart
    elif mode == K8S_JOB_MODE:
        health_url = f"{http_address}/{_GCS_HEALTH_PATH}"
        guarded = True
    else:
        raise SubmitterError(f"unsupported submission mode for job submit command: {mode}")
    job_id = check_submission_id(submission_id)
    command = go_trim_space(entrypoint)
    if not command:
        raise SubmitterError(
            "spec.entrypoint is empty: there is nothing for `ray job submit` to run"
        )
    if "\x00" in command:
        raise SubmitterError("spec.entrypoint cannot contain a NUL character")

    health = _PYTHON_HEALTH_COMMAND.format(url=health_url, timeout=_GCS_HEALTH_TIMEOUT_SECONDS)
    waiting = shell_quote(f"Waiting for Ray Dashboard GCS to become healthy at {http_address} ...")
    tokens = unpack_command(code.sha256) if code is not None else []
    tokens += ["until", health, ">/dev/null", "2>&1", ";"]
    tokens += ["do", "echo", waiting, ";", "sleep", "2", ";", "done", ";"]
    if guarded:
        tokens += ["if", "!", "ray", "job", "status", "--address", http_address, job_id]
        tokens += [">/dev/null", "2>&1", ";", "then"]
    tokens += ["ray", "job", "submit", "--address", http_address]
    if guarded:
        tokens.append("--no-wait")
    if code is not None and code.py_modules:
        tokens += ["--runtime-env-json", shell_quote(_with_py_modules(runtime_env_yaml, code))]
    elif runtime_env_yaml:
        tokens += ["--runtime-env-json", shell_quote(runtime_env_json(runtime_env_yaml))]
    if metadata:
        if ray_version:
            _go_semver_at_least_2_6(ray_version)
        tokens += ["--metadata-json", shell_quote(go_json_dumps(metadata))]
    if code is not None and code.working_dir:
        tokens += ["--working-dir", WORKING_DIR]
    tokens += ["--submission-id", job_id]
    cpus = go_percent_f_float32(entrypoint_num_cpus, "spec.entrypointNumCpus")
    if cpus is not None:
        tokens += ["--entrypoint-num-cpus", cpus]
    gpus = go_percent_f_float32(entrypoint_num_gpus, "spec.entrypointNumGpus")
    if gpus is not None:
        tokens += ["--entrypoint-num-gpus", gpus]
    if entrypoint_resources:
        tokens += ["--entrypoint-resources", shell_quote(entrypoint_resources)]
    tokens += ["--", command, ";"]
    if guarded:
        tokens += ["fi", ";", "ray", "job", "logs", "--address", http_address, "--follow", job_id]
        if fail_on_job_failure:
            tokens += [
                ";",
                "python",
                "-c",
                _STATUS_CHECK.format(address=http_address, job_id=job_id),
            ]
    return tokens


# The address and ID are validated plain tokens (no quotes), so they sit safely inside.
_STATUS_CHECK = (
    '"import sys; from ray.job_submission import JobSubmissionClient, JobStatus; '
    "sys.exit(0 if JobSubmissionClient('{address}').get_job_status('{job_id}') == "
    'JobStatus.SUCCEEDED else 1)"'
)


def submit_tokens(
    *,
    mode: str,
    spec: RayJobSpec,
    submission_id: str,
    address: str,
    sidecar_restart: bool,
    fail_on_job_failure: bool = False,
    code: CodeMount | None = None,
) -> list[str]:
    """:func:`build_submit_command` with the values of the typed RayJob ``spec``."""
    cluster = spec.ray_cluster_spec
    return build_submit_command(
        mode=mode,
        address=address,
        submission_id=submission_id,
        entrypoint=spec.entrypoint,
        runtime_env_yaml=spec.runtime_env_yaml,
        metadata=spec.metadata,
        entrypoint_num_cpus=spec.entrypoint_num_cpus,
        entrypoint_num_gpus=spec.entrypoint_num_gpus,
        entrypoint_resources=spec.entrypoint_resources,
        ray_version=cluster.ray_version if cluster is not None else None,
        sidecar_restart=sidecar_restart,
        fail_on_job_failure=fail_on_job_failure,
        code=code,
    )
