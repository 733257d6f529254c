"""The Ray job submitter: KubeRay's ``ray job submit`` shell command, Job and sidecar, offline.

KubeRay's RayJob controller submits a job by running a shell command (``BuildJobSubmitCommand``
in ``ray-operator/controllers/ray/common/job.go``) either in a batch/v1 Job (``K8sJobMode``)
or in a container appended to the head pod (``SidecarMode``). raygang is not the operator: it
renders the same objects up front, so this module rebuilds that command and the containers
around it from the plain RayJob ``spec`` mapping, token for token, as KubeRay v1.7.0 does.

Everything here is pure (stdlib and PyYAML), works on plain dicts and returns plain dicts with
Kubernetes' camelCase keys, so the offline planner and the Pulumi component share it.

Where this module deliberately differs from KubeRay (each is also commented at its site):

* **Shell quoting.** KubeRay wraps the runtime env JSON, the metadata JSON and the entrypoint
  resources in Go's ``strconv.Quote`` and hands the result to ``bash -c``. That is not shell
  quoting: inside bash double quotes ``$(...)``, ``${...}`` and backticks still expand, so a
  runtime env value such as ``$(touch pwned)`` runs in the submitter pod. :func:`shell_quote`
  additionally escapes ``$`` and backtick, and writes characters that Go would escape as
  ``\n``, ``\x7f``, ``\U000e0001`` (which bash does not decode) as themselves, so bash yields
  the original bytes. For strings of printable characters without ``$`` or backtick the output
  is byte-identical to ``strconv.Quote``. ``!`` is left alone on purpose: history expansion is
  off in ``bash -c``, and a backslash before ``!`` would be kept by bash, changing the value.
* **The entrypoint cannot break the script.** KubeRay splices the entrypoint into the script
  (``... -- ENTRYPOINT ; fi ; ray job logs ...``), so ``python a.py # note`` comments out the
  rest, an unbalanced quote swallows it and ``x ; fi ; ... if true ; then true`` escapes the
  ``if ! ray job status`` retry guard. Here KubeRay's ``ray job submit ... -- ENTRYPOINT`` is
  one single-quoted word handed to ``eval``: the entrypoint is still shell code, parsed by
  the same bash in the same place, but on its own. Validation refuses, with bash's message
  (``bash -n``), an entrypoint bash cannot parse.
* **Values that reach the shell unquoted** (submission ID, dashboard address) are validated
  instead of quoted, so the token vector still matches KubeRay's.
* **Submission ID.** KubeRay uses ``<job>-<5 random chars>``, regenerated on every retry;
  :func:`submission_id` derives it from the spec so a re-run never submits twice.
* **Env of the submitter container.** KubeRay appends ``PYTHONUNBUFFERED``,
  ``RAY_DASHBOARD_ADDRESS`` and ``RAY_JOB_SUBMISSION_ID`` even if the user's template already
  sets them (the later entry wins in the kubelet). Duplicate names are rejected by server-side
  apply, so the user's entry is dropped instead: the effective values are the same.
* **Least privilege** for every submitter pod, the user's template too (no service-account
  token, a restricted securityContext, unless the template sets them), a missing
  ``restartPolicy`` filled in, and labels
  ``app.kubernetes.io/created-by: raygang``; see :func:`submitter_pod_template`.
* **Errors up front** where KubeRay would loop or hand Ray something broken: an empty
  entrypoint, NUL characters, a head container that declares ports but no ``dashboard`` one
  (also in SidecarMode, where KubeRay's command would silently use 8265), a non-mapping
  runtime env (KubeRay's validation rejects it too).
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import re
import struct
import unicodedata
from collections.abc import Mapping
from typing import Any, Final

from raygang.kube.bashsyntax import go_trim_space, single_quote
from raygang.kube.goquote import SubmitterError, go_json_dumps, shell_quote
from raygang.kube.goyaml import runtime_env_data, runtime_env_json

__all__ = [
    "DEFAULT_DASHBOARD_PORT",
    "DEFAULT_SUBMITTER_BACKOFF_LIMIT",
    "DEFAULT_SUBMITTER_LIMITS",
    "DEFAULT_SUBMITTER_REQUESTS",
    "K8S_JOB_MODE",
    "SIDECAR_MODE",
    "SUBMITTER_COMMAND",
    "SUBMITTER_CONTAINER_NAME",
    "SubmitterError",
    "build_submit_command",
    "dashboard_port",
    "dashboard_url",
    "default_submitter_container",
    "go_json_dumps",
    "restricted_security_context",
    "runtime_env_json",
    "shell_quote",
    "sidecar_container",
    "submission_id",
    "submit_shell",
    "submitter_job",
    "submitter_pod_template",
]


# --- constants (KubeRay ray-operator/controllers/ray/utils/constant.go unless noted) ---------
SUBMITTER_CONTAINER_NAME: Final = "ray-job-submitter"

DEFAULT_SUBMITTER_REQUESTS: Final[dict[str, str]] = {"cpu": "500m", "memory": "200Mi"}

DEFAULT_SUBMITTER_LIMITS: Final[dict[str, str]] = {"cpu": "1", "memory": "1Gi"}

#: ``createNewK8sJob``: at most three attempts unless ``spec.submitterConfig.backoffLimit``.
DEFAULT_SUBMITTER_BACKOFF_LIMIT: Final = 2

#: ``GetContainerCommand(["e"])``; the operator's ``ENABLE_LOGIN_SHELL`` (``-cel``) is an
#: operator-wide switch raygang has no equivalent of.
SUBMITTER_COMMAND: Final[tuple[str, ...]] = ("/bin/bash", "-ce", "--")

K8S_JOB_MODE: Final = "K8sJobMode"

SIDECAR_MODE: Final = "SidecarMode"

DEFAULT_DASHBOARD_PORT: Final = 8265

DASHBOARD_PORT_NAME: Final = "dashboard"

DEFAULT_CLUSTER_DOMAIN: Final = "cluster.local"

_GCS_HEALTH_PATH: Final = "api/gcs_healthz"

_GCS_HEALTH_TIMEOUT_SECONDS: Final = 10

# BasePythonHealthCommand: the head image always has python; curl/wget it may not have.
_PYTHON_HEALTH_COMMAND: Final = (
    "python -c \"import urllib.request; r=urllib.request.urlopen('{url}', timeout={timeout}); "
    "exit(0 if b'success' in r.read() else 1)\""
)

_ENV_PYTHONUNBUFFERED: Final = "PYTHONUNBUFFERED"

_ENV_DASHBOARD_ADDRESS: Final = "RAY_DASHBOARD_ADDRESS"

_ENV_SUBMISSION_ID: Final = "RAY_JOB_SUBMISSION_ID"

_ENV_AUTH_MODE: Final = "RAY_AUTH_MODE"

_ENV_AUTH_TOKEN: Final = "RAY_AUTH_TOKEN"

_AUTH_TOKEN_SECRET_KEY: Final = "auth_token"

_LABEL_CR_NAME: Final = "ray.io/originated-from-cr-name"

_LABEL_CRD: Final = "ray.io/originated-from-crd"

_LABEL_CREATED_BY: Final = "app.kubernetes.io/created-by"

# KubeRay writes "kuberay-operator" here. raygang, not the operator, creates these objects;
# claiming otherwise would mislead tools that select on the label (and people reading it).
CREATED_BY: Final = "raygang"

_METADATA_MIN_RAY_VERSION_MESSAGE: Final = (
    "the Ray version must be at least 2.6.0 to use the metadata field"
)

# A submission ID and the dashboard address are written into the shell unquoted, as KubeRay
# does. Rather than quote them (which would change the token vector), only values that need no
# quoting are accepted. The ID must not start with "-", or click would read it as an option.
_SUBMISSION_ID_RE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")

# No brackets (IPv6 literals are glob patterns to bash), no userinfo, no query: a Service
# host name or an IPv4 address, an optional port, an optional "http://".
_ADDRESS_RE: Final = re.compile(
    r"(?:http://)?[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?"
)

_HASH_HEX_CHARS: Final = 8


# --- small helpers -----------------------------------------------------------------------------
def _plain(value: Any) -> Any:
    """A deep copy with every Mapping turned into a dict and every list/tuple into a list."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return copy.deepcopy(value)


def _get_mapping(parent: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = parent.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SubmitterError(f"{where}.{key} must be a mapping, got {type(value).__name__}")
    return value


def _containers(pod_spec: Mapping[str, Any], where: str) -> list[Any]:
    containers = pod_spec.get("containers")
    if not isinstance(containers, list) or not containers or not isinstance(containers[0], Mapping):
        raise SubmitterError(f"{where}.containers must list at least one container")
    return containers


def _head_pod_spec(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    cluster = _get_mapping(spec, "rayClusterSpec", "spec")
    head = _get_mapping(cluster, "headGroupSpec", "spec.rayClusterSpec")
    template = _get_mapping(head, "template", "spec.rayClusterSpec.headGroupSpec")
    return _get_mapping(template, "spec", "spec.rayClusterSpec.headGroupSpec.template")


def _head_image(spec: Mapping[str, Any]) -> str:
    where = "spec.rayClusterSpec.headGroupSpec.template.spec"
    image = _containers(_head_pod_spec(spec), where)[0].get("image")
    if not isinstance(image, str) or not image:
        # KubeRay copies the head image so the submitter's `ray` matches the cluster's.
        raise SubmitterError(f"{where}.containers[0].image is required for the default submitter")
    return image


def _go_percent_f_float32(value: Any, field: str) -> str | None:
    """Go ``fmt.Sprintf("%f", float32)``, or None when KubeRay would leave the flag out (<= 0).

    ``entrypointNumCpus``/``entrypointNumGpus`` are float32 in KubeRay's Go types, so the
    number is first rounded to float32, as decoding the RayJob in the operator would.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SubmitterError(f"{field} must be a number, got {value!r}")
    try:
        as32: float = struct.unpack("<f", struct.pack("<f", float(value)))[0]
    except OverflowError:
        raise SubmitterError(f"{field} {value!r} does not fit a float32") from None
    if not math.isfinite(as32):
        raise SubmitterError(f"{field} must be finite, got {value!r}")
    if not as32 > 0:
        return None
    return f"{as32:.6f}"


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


def _check_submission_id(value: str) -> str:
    if not isinstance(value, str) or not _SUBMISSION_ID_RE.fullmatch(value):
        raise SubmitterError(
            f"submission ID {value!r} is not accepted: it is written into the submitter's shell "
            "command unquoted, so it must be 1-128 characters of [A-Za-z0-9._-] starting with a "
            "letter or digit"
        )
    return value


def _http_address(address: str) -> str:
    if not isinstance(address, str) or not _ADDRESS_RE.fullmatch(address):
        raise SubmitterError(
            f"dashboard address {address!r} is not accepted: it is written into the submitter's "
            "shell command unquoted, so it must be host[:port] (letters, digits, '.', '-'), "
            "optionally prefixed with http://"
        )
    return address if address.startswith("http://") else "http://" + address


# --- public API ---------------------------------------------------------------------------------
def dashboard_port(head_pod_spec: Mapping[str, Any]) -> int:
    """The dashboard port of the head container, as the head Service exposes it.

    KubeRay's head Service copies the named ports of ``containers[0]``; if none are declared
    it uses defaults, dashboard 8265. If ports are declared but none is named ``dashboard``,
    the Service has no dashboard port and KubeRay's ``FetchHeadServiceURL`` fails with
    ``dashboard port is not found``, leaving the RayJob requeueing forever.

    Args:
        head_pod_spec: ``rayClusterSpec.headGroupSpec.template.spec``.

    Returns:
        The port number.

    Raises:
        SubmitterError: no port is named ``dashboard`` although ports are declared, the port
            is not a valid number, or the pod spec has no container.
    """
    where = "spec.rayClusterSpec.headGroupSpec.template.spec"
    head = _containers(head_pod_spec, where)[0]
    ports = head.get("ports") or []
    if not isinstance(ports, list):
        raise SubmitterError(f"{where}.containers[0].ports must be a list")
    if not ports:
        return DEFAULT_DASHBOARD_PORT
    for port in ports:
        if isinstance(port, Mapping) and port.get("name") == DASHBOARD_PORT_NAME:
            number = port.get("containerPort")
            if isinstance(number, bool) or not isinstance(number, int) or not 0 < number < 65536:
                raise SubmitterError(
                    f"{where}.containers[0].ports[name=dashboard].containerPort must be 1-65535, "
                    f"got {number!r}"
                )
            return number
    raise SubmitterError(
        "dashboard port is not found: the head container declares ports but none is named "
        f"'dashboard' ({where}.containers[0].ports); add one (containerPort 8265) or remove "
        "the port list so KubeRay's defaults apply"
    )


def dashboard_url(
    job_name: str,
    namespace: str,
    head_group_spec: Mapping[str, Any],
    *,
    cluster_domain: str = DEFAULT_CLUSTER_DOMAIN,
) -> str:
    """The dashboard address KubeRay stores in ``status.dashboardURL`` (no scheme).

    ``<head service>.<namespace>.svc.<cluster domain>:<port>``. The head Service is
    ``headGroupSpec.headService.metadata.name`` when set, else ``<cluster>-head-svc``; the
    RayCluster is named exactly ``job_name`` in raygang. A custom ``headService`` keeps its own
    ports first, so a port named ``dashboard`` there wins over the container's.

    Args:
        job_name: the RayJob name (= RayCluster name).
        namespace: the RayJob namespace.
        head_group_spec: ``rayClusterSpec.headGroupSpec``.
        cluster_domain: the cluster's DNS domain (KubeRay's ``CLUSTER_DOMAIN``).

    Returns:
        For example ``job-head-svc.ns.svc.cluster.local:8265``.

    Raises:
        SubmitterError: see :func:`dashboard_port`.
    """
    where = "spec.rayClusterSpec.headGroupSpec"
    service = _get_mapping(head_group_spec, "headService", where)
    service_name = _get_mapping(service, "metadata", f"{where}.headService").get("name")
    name = (
        service_name if isinstance(service_name, str) and service_name else f"{job_name}-head-svc"
    )
    port: int | None = None
    for item in _get_mapping(service, "spec", f"{where}.headService").get("ports") or []:
        if isinstance(item, Mapping) and item.get("name") == DASHBOARD_PORT_NAME:
            candidate = item.get("port")
            if isinstance(candidate, int) and not isinstance(candidate, bool):
                port = candidate
                break
    if port is None:
        template = _get_mapping(head_group_spec, "template", where)
        port = dashboard_port(_get_mapping(template, "spec", f"{where}.template"))
    return f"{name}.{namespace}.svc.{cluster_domain}:{port}"


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


def submission_id(job_name: str, spec: Mapping[str, Any]) -> str:
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

    Args:
        job_name: the RayJob's ``metadata.name``.
        spec: the RayJob's ``spec``.

    Returns:
        The submission ID.

    Raises:
        SubmitterError: ``spec.jobId`` or ``job_name`` is not a safe ID, or the runtime env
            YAML cannot be converted.
    """
    job_id = spec.get("jobId")
    if job_id:
        return _check_submission_id(job_id)
    entrypoint = spec.get("entrypoint")
    runtime_env = spec.get("runtimeEnvYAML")
    resources = spec.get("entrypointResources")
    try:
        resources_data: Any = json.loads(resources) if isinstance(resources, str) else resources
    except ValueError:
        resources_data = resources
    payload = {
        "entrypoint": go_trim_space(entrypoint) if isinstance(entrypoint, str) else entrypoint,
        "runtimeEnv": runtime_env_data(runtime_env) if isinstance(runtime_env, str) else None,
        "metadata": spec.get("metadata") or {},
        "entrypointNumCpus": _go_percent_f_float32(
            spec.get("entrypointNumCpus"), "entrypointNumCpus"
        ),
        "entrypointNumGpus": _go_percent_f_float32(
            spec.get("entrypointNumGpus"), "entrypointNumGpus"
        ),
        "entrypointResources": resources_data or None,
        "rayClusterSpec": spec.get("rayClusterSpec"),
    }
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
    return _check_submission_id(f"{job_name}-{digest}")


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
    job_id = _check_submission_id(submission_id)
    if not isinstance(entrypoint, str):
        raise SubmitterError(f"spec.entrypoint must be a string, got {type(entrypoint).__name__}")
    command = go_trim_space(entrypoint)
    if not command:
        raise SubmitterError(
            "spec.entrypoint is empty: there is nothing for `ray job submit` to run"
        )
    if "\x00" in command:
        raise SubmitterError("spec.entrypoint cannot contain a NUL character")

    health = _PYTHON_HEALTH_COMMAND.format(url=health_url, timeout=_GCS_HEALTH_TIMEOUT_SECONDS)
    waiting = shell_quote(f"Waiting for Ray Dashboard GCS to become healthy at {http_address} ...")
    tokens = ["until", health, ">/dev/null", "2>&1", ";"]
    tokens += ["do", "echo", waiting, ";", "sleep", "2", ";", "done", ";"]
    if guarded:
        tokens += ["if", "!", "ray", "job", "status", "--address", http_address, job_id]
        tokens += [">/dev/null", "2>&1", ";", "then"]
    tokens += ["ray", "job", "submit", "--address", http_address]
    if guarded:
        tokens.append("--no-wait")
    if runtime_env_yaml:
        tokens += ["--runtime-env-json", shell_quote(runtime_env_json(runtime_env_yaml))]
    if metadata:
        for key, value in metadata.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise SubmitterError(
                    f"spec.metadata must map strings to strings, got {key!r}: {value!r}"
                )
        if ray_version:
            _go_semver_at_least_2_6(ray_version)
        tokens += ["--metadata-json", shell_quote(go_json_dumps(metadata))]
    tokens += ["--submission-id", job_id]
    cpus = _go_percent_f_float32(entrypoint_num_cpus, "spec.entrypointNumCpus")
    if cpus is not None:
        tokens += ["--entrypoint-num-cpus", cpus]
    gpus = _go_percent_f_float32(entrypoint_num_gpus, "spec.entrypointNumGpus")
    if gpus is not None:
        tokens += ["--entrypoint-num-gpus", gpus]
    if entrypoint_resources:
        if not isinstance(entrypoint_resources, str):
            raise SubmitterError("spec.entrypointResources must be a JSON string")
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


def submit_shell(tokens: list[str]) -> str:
    """The container's ``args[0]`` for ``bash -ce --``: the tokens, the entrypoint sealed.

    KubeRay joins the tokens with single spaces, which splices the entrypoint into the
    script. Here ``ray job submit ... -- ENTRYPOINT`` (KubeRay's words, unchanged) becomes
    one single-quoted word for ``eval``: the entrypoint is still shell code, parsed by the
    same bash at the same point, but on its own, so a ``#``, a ``fi``, a newline or an
    unbalanced quote in it cannot reach the ``if ! ray job status`` retry guard or the
    ``ray job logs`` after it.
    """
    start = next(
        (i for i in range(len(tokens) - 2) if tokens[i : i + 3] == ["ray", "job", "submit"]),
        None,
    )
    if start is None or "--" not in tokens[start:]:
        return " ".join(tokens)
    # The first "--" after `ray job submit` ends its flags (no flag value is "--"); the
    # entrypoint is the one token after it.
    end = tokens.index("--", start) + 2
    sealed = [*tokens[:start], "eval", single_quote(" ".join(tokens[start:end])), *tokens[end:]]
    return " ".join(sealed)


def default_submitter_container(image: str) -> dict[str, Any]:
    """KubeRay's ``GetDefaultSubmitterContainer`` plus :func:`restricted_security_context`.

    The image is the head's so the ``ray`` CLI matches the cluster's version. The requests
    (500m CPU, 200Mi) are what the PodGroup's ``minResources`` reserves for the submitter.

    Args:
        image: the container image.

    Returns:
        A container without command, args or env (see :func:`submitter_pod_template`).
    """
    return {
        "name": SUBMITTER_CONTAINER_NAME,
        "image": image,
        "resources": {
            "limits": dict(DEFAULT_SUBMITTER_LIMITS),
            "requests": dict(DEFAULT_SUBMITTER_REQUESTS),
        },
        # The submitter only runs `ray job ...` over HTTP; it never needs more privileges.
        "securityContext": restricted_security_context(),
    }


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

    What the user set wins, field by field, and so do the combinations Kubernetes refuses
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
    if context.get("seccompProfile") is None and not pod_seccomp:
        context["seccompProfile"] = {"type": "RuntimeDefault"}


def _harden_pod(pod_spec: dict[str, Any]) -> None:
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


def _auth_options(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    cluster = _get_mapping(spec, "rayClusterSpec", "spec")
    return _get_mapping(cluster, "authOptions", "spec.rayClusterSpec")


def _kuberay_check_name(name: str) -> str:
    """KubeRay's ``CheckName`` (used for the auth token Secret's default name)."""
    if len(name) > 50:
        name = name[len(name) - 50 :]
    if name and (name[0].isdigit() or unicodedata.category(name[0]).startswith("P")):
        name = "r" + name[1:]
    return name


def _configure_container(
    container: dict[str, Any],
    *,
    tokens: list[str] | None,
    force_command: bool,
    env_dashboard_address: str,
    submission_id: str,
    spec: Mapping[str, Any],
    cluster_name: str,
) -> None:
    """KubeRay's ``configureSubmitterContainer``: command, args, env, auth env."""
    if force_command or not container.get("command"):
        if tokens is None:
            raise SubmitterError("internal: the submit command is needed but was not built")
        # -e: stop at the first failing command, e.g. when `ray job submit` is refused.
        container["command"] = list(SUBMITTER_COMMAND)
        container["args"] = [submit_shell(tokens)]
    ours = {
        _ENV_PYTHONUNBUFFERED: "1",  # real-time logs in `kubectl logs`
        # Documented for users' own commands, e.g. --submission-id=$RAY_JOB_SUBMISSION_ID.
        _ENV_DASHBOARD_ADDRESS: env_dashboard_address,
        _ENV_SUBMISSION_ID: submission_id,
    }
    env = container.get("env") or []
    if not isinstance(env, list):
        raise SubmitterError("the submitter container's env must be a list")
    # KubeRay appends unconditionally and the later duplicate wins; server-side apply rejects
    # duplicate names, so drop the user's entry and keep the same effective value.
    env = [e for e in env if not (isinstance(e, Mapping) and e.get("name") in ours)]
    env += [{"name": name, "value": value} for name, value in ours.items()]
    auth = _auth_options(spec)
    if auth.get("mode") == "token":
        if auth.get("enableK8sTokenAuth") is True:
            raise SubmitterError(
                "The RayJob spec is invalid: "
                "K8s token auth mode is currently not supported for RayJob"
            )
        names = {e.get("name") for e in env if isinstance(e, Mapping)}
        # SetContainerTokenAuthEnvVars: only when the user has not set them already.
        if _ENV_AUTH_MODE not in names:
            env.append({"name": _ENV_AUTH_MODE, "value": "token"})
        if _ENV_AUTH_TOKEN not in names:
            secret = auth.get("secretName") or (cluster_name and _kuberay_check_name(cluster_name))
            if not secret:
                raise SubmitterError(
                    "token auth needs the RayCluster name (or authOptions.secretName) to find "
                    "the token Secret; pass job_name"
                )
            env.append(
                {
                    "name": _ENV_AUTH_TOKEN,
                    "valueFrom": {"secretKeyRef": {"name": secret, "key": _AUTH_TOKEN_SECRET_KEY}},
                }
            )
    container["env"] = env


def _submit_tokens(
    *,
    mode: str,
    spec: Mapping[str, Any],
    submission_id: str,
    address: str,
    sidecar_restart: bool,
    fail_on_job_failure: bool = False,
) -> list[str]:
    cluster = _get_mapping(spec, "rayClusterSpec", "spec")
    ray_version = cluster.get("rayVersion")
    runtime_env = spec.get("runtimeEnvYAML")
    resources = spec.get("entrypointResources")
    metadata = spec.get("metadata")
    if metadata is not None and not isinstance(metadata, Mapping):
        raise SubmitterError("spec.metadata must be a mapping of strings")
    return build_submit_command(
        mode=mode,
        address=address,
        submission_id=submission_id,
        entrypoint=spec.get("entrypoint", ""),
        runtime_env_yaml=runtime_env if isinstance(runtime_env, str) else None,
        metadata=metadata,
        entrypoint_num_cpus=spec.get("entrypointNumCpus"),
        entrypoint_num_gpus=spec.get("entrypointNumGpus"),
        entrypoint_resources=resources if isinstance(resources, str) else None,
        ray_version=ray_version if isinstance(ray_version, str) else None,
        sidecar_restart=sidecar_restart,
        fail_on_job_failure=fail_on_job_failure,
    )


def _kuberay_labels(job_name: str) -> dict[str, str]:
    return {_LABEL_CR_NAME: job_name, _LABEL_CRD: "RayJob", _LABEL_CREATED_BY: CREATED_BY}


def submitter_pod_template(
    *,
    job_name: str,
    namespace: str,
    spec: Mapping[str, Any],
    submission_id: str,
    dashboard_address: str,
    labels: Mapping[str, str],
    fail_on_job_failure: bool = False,
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
    where the template sets these fields itself (see :func:`_harden_pod`); a user template
    without ``restartPolicy`` gets ``Never`` (a Job rejects the pod default, ``Always``).

    Args:
        job_name: the RayJob name.
        namespace: the RayJob namespace (a pod template carries none; kept for symmetry with
            :func:`submitter_job`).
        spec: the RayJob ``spec``.
        submission_id: from :func:`submission_id`.
        dashboard_address: from :func:`dashboard_url` (no scheme).
        labels: extra pod labels (e.g. Volcano queue); they override the template's own, and
            the ``ray.io/originated-from-*`` and ``created-by`` labels override both.
        fail_on_job_failure: see :func:`build_submit_command`.

    Returns:
        A ``PodTemplateSpec`` dict.

    Raises:
        SubmitterError: see :func:`build_submit_command`; also a template without containers.
    """
    del namespace  # pod templates are namespace-less; the Job carries it
    user_template = spec.get("submitterPodTemplate")
    if user_template:
        if not isinstance(user_template, Mapping):
            raise SubmitterError("spec.submitterPodTemplate must be a pod template mapping")
        template: dict[str, Any] = _plain(user_template)
        pod_spec = template.setdefault("spec", {})
        if not isinstance(pod_spec, dict):
            raise SubmitterError("spec.submitterPodTemplate.spec must be a mapping")
        _containers(pod_spec, "spec.submitterPodTemplate.spec")
        pod_spec.setdefault("restartPolicy", "Never")
    else:
        template = {
            "spec": {
                "containers": [default_submitter_container(_head_image(spec))],
                "restartPolicy": "Never",
            }
        }
    first = template["spec"]["containers"][0]
    # KubeRay builds the submit command only for a container without its own command; a
    # user's own command (say, a light-weight submitter) may run without spec.entrypoint.
    tokens = (
        None
        if isinstance(first, Mapping) and first.get("command")
        else _submit_tokens(
            mode=K8S_JOB_MODE,
            spec=spec,
            submission_id=submission_id,
            address=dashboard_address,
            sidecar_restart=False,
            fail_on_job_failure=fail_on_job_failure,
        )
    )
    _configure_container(
        first,
        tokens=tokens,
        force_command=False,
        env_dashboard_address=dashboard_address.removeprefix("http://"),
        submission_id=submission_id,
        spec=spec,
        cluster_name=job_name,
    )
    _harden_pod(template["spec"])
    metadata = template.setdefault("metadata", {})
    if not isinstance(metadata, dict):
        raise SubmitterError("spec.submitterPodTemplate.metadata must be a mapping")
    own_labels = metadata.get("labels") or {}
    metadata["labels"] = {**own_labels, **labels, **_kuberay_labels(job_name)}
    return template


def submitter_job(
    *,
    job_name: str,
    namespace: str,
    spec: Mapping[str, Any],
    submission_id: str,
    dashboard_address: str,
    labels: Mapping[str, str],
    fail_on_job_failure: bool = False,
) -> dict[str, Any]:
    """The batch/v1 submitter Job (KubeRay ``createNewK8sJob``), without owner references.

    Named like the RayJob, labelled ``ray.io/originated-from-cr-name``,
    ``ray.io/originated-from-crd: RayJob`` and ``app.kubernetes.io/created-by: raygang``
    (KubeRay writes ``kuberay-operator``; raygang is not the operator). ``backoffLimit`` is
    ``spec.submitterConfig.backoffLimit`` or 2. The caller adds owner references and the
    Volcano annotations.

    Args:
        job_name: the RayJob name.
        namespace: the RayJob namespace.
        spec: the RayJob ``spec``.
        submission_id: from :func:`submission_id`.
        dashboard_address: from :func:`dashboard_url`.
        labels: extra pod-template labels, see :func:`submitter_pod_template`.
        fail_on_job_failure: see :func:`build_submit_command`.

    Returns:
        A Job manifest dict.

    Raises:
        SubmitterError: a bad ``backoffLimit`` or see :func:`submitter_pod_template`.
    """
    config = _get_mapping(spec, "submitterConfig", "spec")
    backoff = config.get("backoffLimit")
    if backoff is None:
        backoff = DEFAULT_SUBMITTER_BACKOFF_LIMIT
    elif isinstance(backoff, bool) or not isinstance(backoff, int) or backoff < 0:
        raise SubmitterError(
            f"spec.submitterConfig.backoffLimit must be a non-negative integer, got {backoff!r}"
        )
    template = submitter_pod_template(
        job_name=job_name,
        namespace=namespace,
        spec=spec,
        submission_id=submission_id,
        dashboard_address=dashboard_address,
        labels=labels,
        fail_on_job_failure=fail_on_job_failure,
    )
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": job_name, "namespace": namespace, "labels": _kuberay_labels(job_name)},
        "spec": {"backoffLimit": backoff, "template": template},
    }


def sidecar_container(
    *,
    spec: Mapping[str, Any],
    submission_id: str,
    job_name: str | None = None,
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
        spec: the RayJob ``spec``.
        submission_id: from :func:`submission_id`.
        job_name: the RayJob (= RayCluster) name; needed only for Ray token auth without
            ``authOptions.secretName``, where the token Secret is named after the cluster.
        sidecar_restart: as KubeRay's ``SidecarSubmitterRestart`` gate: guard against
            resubmission and restart the container ``OnFailure`` (Kubernetes >= 1.35).

    Returns:
        A container dict.

    Raises:
        SubmitterError: ``submitterPodTemplate`` or ``submitterConfig`` is set (KubeRay's
            validation rejects both in SidecarMode), or see :func:`build_submit_command`.
    """
    if spec.get("submitterPodTemplate"):
        raise SubmitterError("Currently, SidecarMode doesn't support SubmitterPodTemplate")
    if spec.get("submitterConfig"):
        raise SubmitterError("Currently, SidecarMode doesn't support SubmitterConfig")
    port = dashboard_port(_head_pod_spec(spec))
    tokens = _submit_tokens(
        mode=SIDECAR_MODE,
        spec=spec,
        submission_id=submission_id,
        address=f"127.0.0.1:{port}",
        sidecar_restart=sidecar_restart,
    )
    container = default_submitter_container(_head_image(spec))
    _configure_container(
        container,
        tokens=tokens,
        force_command=True,
        env_dashboard_address="",
        submission_id=submission_id,
        spec=spec,
        cluster_name=job_name or "",
    )
    if sidecar_restart:
        container["restartPolicy"] = "OnFailure"
    return container
