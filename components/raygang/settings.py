"""Stack settings: the ``raygang:*`` keys of a stack config, and per-job overrides.

The Pulumi program and ``raygang plan`` both build a :class:`StackSettings` from the same
keys, so what the offline plan prints is what ``pulumi up`` would create.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from raygang.kube.errors import Problem, SpecError
from raygang.kuberay.gang import Accounting
from raygang.kuberay.settings import JobSettings
from raygang.rayjob.spec import problems_from_validation_error

__all__ = ["JobSettings", "StackSettings", "read_stack_file", "settings_from_getter"]


KEYS = (
    "manifests",
    "jobs",
    "queues",
    "accounting",
    "clusterDomain",
    "waitForCompletion",
    "completionTimeoutSeconds",
    "clusterReadyTimeoutSeconds",
    "preflight",
    "clusterSnapshot",
    "nodeShapes",
    "liveFacts",
    "failOnJobFailure",
    "now",
)


class StackSettings(BaseModel):
    """The ``raygang:*`` keys of one stack."""

    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="forbid")

    manifests: list[str] = Field(default_factory=list)
    jobs: list[dict[str, Any]] = Field(default_factory=list)
    queues: list[dict[str, Any]] = Field(default_factory=list)
    accounting: Accounting = Accounting.EFFECTIVE
    cluster_domain: str = Field(default="cluster.local", alias="clusterDomain")
    wait_for_completion: bool = Field(default=False, alias="waitForCompletion")
    completion_timeout_seconds: int = Field(default=3600, gt=0, alias="completionTimeoutSeconds")
    cluster_ready_timeout_seconds: int = Field(
        default=900, gt=0, alias="clusterReadyTimeoutSeconds"
    )
    preflight: Literal["error", "warn", "off"] = "error"
    cluster_snapshot: str | None = Field(default=None, alias="clusterSnapshot")
    node_shapes: list[dict[str, Any]] = Field(default_factory=list, alias="nodeShapes")
    live_facts: bool = Field(default=False, alias="liveFacts")
    fail_on_job_failure: bool = Field(default=False, alias="failOnJobFailure")
    now: str | None = None

    def defaults(self) -> JobSettings:
        """The job settings every job starts from."""
        return JobSettings(
            accounting=self.accounting,
            cluster_domain=self.cluster_domain,
            wait_for_completion=self.wait_for_completion,
            completion_timeout_seconds=self.completion_timeout_seconds,
            cluster_ready_timeout_seconds=self.cluster_ready_timeout_seconds,
            fail_on_job_failure=self.fail_on_job_failure,
        )


def settings_from_getter(get: Callable[[str], object], source: str) -> StackSettings:
    """Build settings from a key lookup (``pulumi.Config`` or a parsed stack file).

    Args:
        get: returns the value of ``raygang:<key>``, or None when unset.
        source: names the config in error messages.

    Raises:
        SpecError: a key with a value of the wrong shape.
    """
    values = {key: value for key in KEYS if (value := get(key)) is not None}
    try:
        return StackSettings.model_validate(values)
    except ValidationError as exc:
        problems = problems_from_validation_error(exc, source)
        raise SpecError(
            [Problem(p.source, f"raygang:{p.path}", p.message, p.accepted) for p in problems]
        ) from None


def read_stack_file(path: Path) -> StackSettings:
    """Read ``raygang:*`` keys from a ``Pulumi.<stack>.yaml`` without the Pulumi CLI.

    Raises:
        SpecError: the file is missing, not YAML, or holds an unknown ``raygang:`` key.
    """
    source = str(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise SpecError.one(
            source, "<file>", f"cannot be read: {exc.strerror}", "an existing stack file"
        ) from None
    except yaml.YAMLError as exc:
        raise SpecError.one(
            source, "<file>", f"is not valid YAML: {exc}", "a Pulumi stack file"
        ) from None
    config = data.get("config") or {} if isinstance(data, Mapping) else {}
    if not isinstance(config, Mapping):
        raise SpecError.one(source, "config", "is not a map", "a map of config keys")
    ours = {k.split(":", 1)[1]: v for k, v in config.items() if str(k).startswith("raygang:")}
    unknown = sorted(set(ours) - set(KEYS))
    if unknown:
        raise SpecError(
            [
                Problem(source, f"config.raygang:{k}", "is not a raygang setting", ", ".join(KEYS))
                for k in unknown
            ]
        )
    return settings_from_getter(ours.get, source)
