"""The submitter's rules on a RayJob, run where the RayJob is validated, in their place.

The submitter writes the entrypoint into a ``bash -ce`` script and hands the runtime env to
Ray as the JSON Go's ``sigs.k8s.io/yaml`` makes of it (``BuildJobSubmitCommand``,
``ray-operator/controllers/ray/common/job.go``). An entrypoint bash cannot parse would fail
in every retry of the pod, and a runtime env that does not convert is refused by KubeRay's
validation, so both are refused when the manifest is loaded. The RayJob's validation
(:mod:`raygang.rayjob.validate`, a layer below) calls them among its own checks through
:data:`SUBMITTER_RULES`, which the loader hands it.
"""

from __future__ import annotations

from raygang.kuberay.submitter._bashsyntax import bash_syntax_error
from raygang.kuberay.submitter._errors import SubmitterError
from raygang.kuberay.submitter._goyaml import runtime_env_json
from raygang.rayjob.validate import Refusal, SubmitterRules

__all__ = ["SUBMITTER_RULES", "entrypoint_problem", "runtime_env_problem"]


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
        runtime_env_json(runtime_env_yaml)
    except SubmitterError as exc:
        return str(exc), "a YAML mapping, e.g. 'pip: [requests]'"
    return None


#: The rules the loader hands to :func:`raygang.rayjob.validate.load_rayjob`.
SUBMITTER_RULES = SubmitterRules(entrypoint=entrypoint_problem, runtime_env=runtime_env_problem)
