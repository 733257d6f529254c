"""One job's settings: how its gang is counted and how its submitter waits and fails.

Stack defaults, overridden per job by the ``raygang.dev/*`` annotations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from raygang.kube.errors import Problem, SpecError
from raygang.kuberay.gang import Accounting

__all__ = [
    "ACCOUNTING_ANNOTATION",
    "SUB_GANGS_ANNOTATION",
    "WAIT_ANNOTATION",
    "JobSettings",
    "job_settings",
]


ACCOUNTING_ANNOTATION = "raygang.dev/accounting"

WAIT_ANNOTATION = "raygang.dev/wait-for-completion"

FAIL_ANNOTATION = "raygang.dev/fail-on-job-failure"

# Each replica of a worker group with numOfHosts > 1 a Volcano sub-group (kuberay/subgangs).
SUB_GANGS_ANNOTATION = "raygang.dev/sub-gangs"


class JobSettings(BaseModel):
    """How one job is planned and applied."""

    model_config = ConfigDict(frozen=True)

    accounting: Accounting = Accounting.EFFECTIVE
    cluster_domain: str = "cluster.local"
    wait_for_completion: bool = False
    completion_timeout_seconds: int = Field(default=3600, gt=0)
    cluster_ready_timeout_seconds: int = Field(default=900, gt=0)
    fail_on_job_failure: bool = False
    sub_gangs: bool = False


def job_settings(base: JobSettings, annotations: Mapping[str, str], source: str) -> JobSettings:
    """Apply a job's ``raygang.dev/*`` annotations to the stack defaults.

    Raises:
        SpecError: an annotation with a value that is not accepted.
    """
    changes: dict[str, Any] = {}
    problems: list[Problem] = []
    if ACCOUNTING_ANNOTATION in annotations:
        value = annotations[ACCOUNTING_ANNOTATION]
        try:
            changes["accounting"] = Accounting(value)
        except ValueError:
            problems.append(
                Problem(
                    source,
                    f"metadata.annotations[{ACCOUNTING_ANNOTATION!r}]",
                    f"{value!r} is not an accounting",
                    "effective or kuberay",
                )
            )
    for key, field_name in (
        (WAIT_ANNOTATION, "wait_for_completion"),
        (FAIL_ANNOTATION, "fail_on_job_failure"),
        (SUB_GANGS_ANNOTATION, "sub_gangs"),
    ):
        if key not in annotations:
            continue
        value = annotations[key]
        if value.lower() not in ("true", "false"):
            problems.append(
                Problem(
                    source,
                    f"metadata.annotations[{key!r}]",
                    f"{value!r} is not a boolean",
                    '"true" or "false"',
                )
            )
        else:
            changes[field_name] = value.lower() == "true"
    if problems:
        raise SpecError(problems)
    return base.model_copy(update=changes)
