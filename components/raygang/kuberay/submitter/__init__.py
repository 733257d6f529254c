"""The Ray job submitter: KubeRay's ``ray job submit`` shell command, Job and sidecar, offline.

KubeRay's RayJob controller submits a job by running a shell command (``BuildJobSubmitCommand``
in ``ray-operator/controllers/ray/common/job.go``) either in a batch/v1 Job (``K8sJobMode``)
or in a container appended to the head pod (``SidecarMode``). raygang is not the operator: it
renders the same objects up front, so this module rebuilds that command and the containers
around it, token for token, as KubeRay v1.7.0 does.

It reads the typed, validated RayJob (:class:`raygang.rayjob.spec.RayJobInput`: the model
beside the manifest as written) for every value the model holds, and takes from the
manifest only what the model does not hold: the user's ``submitterPodTemplate``, rendered
from a copy of it as written, ``headService`` (:func:`dashboard_url`) and, for the
submission ID, the RayCluster spec and whether ``entrypoint`` is written
(:func:`submission_id`). Everything here is pure and returns plain dicts with Kubernetes'
camelCase keys, so the offline planner and the Pulumi component share it.

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

from raygang.kuberay.submitter._errors import SubmitterError
from raygang.kuberay.submitter._goquote import go_json_dumps, shell_quote
from raygang.kuberay.submitter._goyaml import runtime_env_data, runtime_env_json
from raygang.kuberay.submitter.codemount import (
    CODE_DIR,
    CODE_PIECES_DIR,
    WORKING_DIR,
    CodeMount,
    piece_key,
)
from raygang.kuberay.submitter.command import K8S_JOB_MODE, SIDECAR_MODE, build_submit_command
from raygang.kuberay.submitter.container import (
    DEFAULT_SUBMITTER_LIMITS,
    DEFAULT_SUBMITTER_REQUESTS,
    SUBMITTER_CONTAINER_NAME,
    default_submitter_container,
)
from raygang.kuberay.submitter.dashboard import (
    DEFAULT_DASHBOARD_PORT,
    dashboard_port,
    dashboard_url,
)
from raygang.kuberay.submitter.job import (
    DEFAULT_SUBMITTER_BACKOFF_LIMIT,
    submitter_job,
    submitter_pod_template,
)
from raygang.kuberay.submitter.rules import SUBMITTER_RULES
from raygang.kuberay.submitter.script import SUBMITTER_COMMAND, submit_shell
from raygang.kuberay.submitter.security import restricted_security_context
from raygang.kuberay.submitter.sidecar import sidecar_container
from raygang.kuberay.submitter.submission import submission_id

__all__ = [
    "CODE_DIR",
    "CODE_PIECES_DIR",
    "DEFAULT_DASHBOARD_PORT",
    "DEFAULT_SUBMITTER_BACKOFF_LIMIT",
    "DEFAULT_SUBMITTER_LIMITS",
    "DEFAULT_SUBMITTER_REQUESTS",
    "K8S_JOB_MODE",
    "SIDECAR_MODE",
    "SUBMITTER_COMMAND",
    "SUBMITTER_CONTAINER_NAME",
    "SUBMITTER_RULES",
    "WORKING_DIR",
    "CodeMount",
    "SubmitterError",
    "build_submit_command",
    "dashboard_port",
    "dashboard_url",
    "default_submitter_container",
    "go_json_dumps",
    "piece_key",
    "restricted_security_context",
    "runtime_env_data",
    "runtime_env_json",
    "shell_quote",
    "sidecar_container",
    "submission_id",
    "submit_shell",
    "submitter_job",
    "submitter_pod_template",
]
