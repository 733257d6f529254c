"""The submitter's rules on a RayJob, run where the RayJob is validated, in their place.

The submitter writes the entrypoint into a ``bash -ce`` script, the submission ID
(``spec.jobId`` when set) into it unquoted, and hands the runtime env to Ray as the JSON Go's
``sigs.k8s.io/yaml`` makes of it (``BuildJobSubmitCommand``,
``ray-operator/controllers/ray/common/job.go``). An entrypoint bash cannot parse or an ID that
needs quoting would fail in every retry of the pod, and a runtime env that does not convert
is refused by KubeRay's validation, so all three are refused when the manifest is loaded.
The RayJob's validation (:mod:`raygang.rayjob.validate`, a layer below) calls them among its
own checks through :data:`SUBMITTER_RULES`, which the loader hands it.
"""

from __future__ import annotations

from raygang.kuberay.submitter._bashsyntax import bash_syntax_error
from raygang.kuberay.submitter._errors import SubmitterError
from raygang.kuberay.submitter._goyaml import runtime_env_json
from raygang.kuberay.submitter.submission import is_safe_submission_id
from raygang.rayjob.validate import Refusal, SubmitterRules

__all__ = ["SUBMITTER_RULES", "entrypoint_problem", "job_id_problem", "runtime_env_problem"]


def entrypoint_problem(entrypoint: str) -> Refusal | None:
    """Why bash cannot parse ``ray job submit ... -- <entrypoint>``, with bash's message."""
    why = bash_syntax_error(entrypoint)
    if not why:
        return None
    return (
        f"bash cannot parse it as the submitter runs it (ray job submit ... -- "
        f"<entrypoint>): {why}",
        "a shell command bash can parse, e.g. python main.py --epochs 3 (quote any "
        "';', '(', ')' or quote character meant for the program)",
    )


def runtime_env_problem(runtime_env_yaml: str) -> Refusal | None:
    """Why KubeRay would refuse ``runtimeEnvYAML``, as the submitter would read it."""
    try:
        runtime_env_json(runtime_env_yaml, duplicate_keys="refuse")
    except SubmitterError as exc:
        return str(exc), "a YAML mapping, e.g. 'pip: [requests]'"
    return None


def job_id_problem(job_id: str) -> Refusal | None:
    """Why ``spec.jobId`` cannot be the submission ID, written unquoted into the shell."""
    if is_safe_submission_id(job_id):
        return None
    return (
        f"{job_id!r} is not accepted: it is written unquoted into the submitter's shell command",
        "1 to 128 letters, digits, '.', '_' and '-', starting with a letter or digit",
    )


#: The rules the loader hands to :func:`raygang.rayjob.spec.load_rayjob`.
SUBMITTER_RULES = SubmitterRules(
    entrypoint=entrypoint_problem, runtime_env=runtime_env_problem, job_id=job_id_problem
)
