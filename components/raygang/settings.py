"""Stack settings: the ``raygang:*`` keys of a stack config, and per-job overrides.

The Pulumi program and ``raygang plan`` both build a :class:`StackSettings` from the same
keys, so what the offline plan prints is what ``pulumi up`` would create.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from raygang.kube.errors import Problem, SpecError, describe_value
from raygang.kube.yamlfile import read_documents
from raygang.kuberay.gang import Accounting
from raygang.kuberay.settings import JobSettings
from raygang.rayjob.spec import problems_from_validation_error

__all__ = [
    "JobSettings",
    "StackSettings",
    "read_stack_file",
    "settings_from_getter",
    "unknown_key_problems",
]


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


def unknown_key_problems(names: Iterable[str], source: str, prefix: str = "") -> list[Problem]:
    """A problem per ``raygang:<key>`` that is not a setting (the CLI and the program both
    refuse them, so a typo such as ``raygang:acounting`` is never silently ignored)."""
    unknown = sorted(
        {n.split(":", 1)[1] for n in map(str, names) if n.startswith("raygang:")} - set(KEYS)
    )
    return [
        Problem(source, f"{prefix}raygang:{k}", "is not a raygang setting", ", ".join(KEYS))
        for k in unknown
    ]


def read_stack_file(path: Path) -> StackSettings:
    """Read ``raygang:*`` keys from a ``Pulumi.<stack>.yaml`` without the Pulumi CLI.

    Raises:
        SpecError: the file is missing, not YAML, or holds an unknown ``raygang:`` key.
    """
    source = str(path)
    # The same bounded reader as every manifest (size cap, aliases, depth, long integers).
    docs = read_documents(path, source)
    if len(docs) > 1:
        raise SpecError.one(source, "<file>", "holds several YAML documents", "a Pulumi stack file")
    data = docs[0].value if docs else {}
    if not isinstance(data, Mapping):
        raise SpecError.one(
            source, "<document>", f"{describe_value(data)} is not a map", "a Pulumi stack file"
        )
    config = data.get("config") or {}
    if not isinstance(config, Mapping):
        raise SpecError.one(source, "config", "is not a map", "a map of config keys")
    ours = {k.split(":", 1)[1]: v for k, v in config.items() if str(k).startswith("raygang:")}
    unknown = unknown_key_problems(config, source, prefix="config.")
    if unknown:
        raise SpecError(unknown)
    return settings_from_getter(ours.get, source)
