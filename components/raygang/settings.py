"""Stack settings: the ``raygang:*`` keys of a stack config, and per-job overrides.

The Pulumi program and ``raygang plan`` both build a :class:`StackSettings` from the same
keys, so what the offline plan prints is what ``pulumi up`` would create. Pulumi hands the
program each value as a string; :func:`config_value` is the one step, shared by the program
and :func:`read_stack_file`, that turns that string into the value settings are built from.

Internal: not part of raygang's public surface (the names ``raygang`` exports); this module may
change without notice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from raygang.kube import kubeyaml
from raygang.kube.errors import Problem, SpecError, describe_value
from raygang.kube.names import dns_problem, name_rules
from raygang.kube.yamlfile import problem_from, read_stack_documents
from raygang.kuberay.gang import Accounting
from raygang.kuberay.settings import JobSettings
from raygang.rayjob.problems import problems_from_validation_error

__all__ = [
    "PROJECT",
    "JobSettings",
    "StackSettings",
    "config_value",
    "read_stack_file",
    "settings_from_getter",
    "stack_config_strings",
    "unknown_key_problems",
]


# The project's name (Pulumi.yaml): the namespace Pulumi gives config keys written without one.
PROJECT = "raygang"


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
    "snapshotMaxMiB",
    "refusePrivilegedCompanions",
    "subGangs",
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
    # Read the snapshot with bounds sized for this many MiB (kube.kubeyaml.Limits.sized).
    snapshot_max_mib: int | None = Field(default=None, gt=0, le=1 << 20, alias="snapshotMaxMiB")
    # Companions granting cluster-wide rights or intercepting admission: errors, not warnings.
    refuse_privileged_companions: bool = Field(default=False, alias="refusePrivilegedCompanions")
    # Each replica of a multi-host worker group a Volcano sub-group (kuberay/subgangs).
    sub_gangs: bool = Field(default=False, alias="subGangs")

    @field_validator(
        "completion_timeout_seconds",
        "cluster_ready_timeout_seconds",
        "snapshot_max_mib",
        mode="before",
    )
    @classmethod
    def _not_a_boolean(cls, value: object) -> object:
        # pydantic reads true as 1: a timeout of `true` would be one second.
        if isinstance(value, bool):
            raise PydanticCustomError("int_type", "Input should be a valid integer")
        return value

    def defaults(self) -> JobSettings:
        """The job settings every job starts from."""
        return JobSettings(
            accounting=self.accounting,
            cluster_domain=self.cluster_domain,
            wait_for_completion=self.wait_for_completion,
            completion_timeout_seconds=self.completion_timeout_seconds,
            cluster_ready_timeout_seconds=self.cluster_ready_timeout_seconds,
            fail_on_job_failure=self.fail_on_job_failure,
            sub_gangs=self.sub_gangs,
        )


def config_value(raw: str | None, source: str) -> object:
    """The value of one ``raygang:*`` key from the string Pulumi hands the program.

    Structured config reaches the program as JSON text and scalars as plain strings: JSON
    text is read through the same bounded reader as every file (size, depth, long integers),
    anything else is the string itself (``off``, ``""``). The program and ``raygang plan``
    both call this, so they cannot read a value differently.

    Raises:
        SpecError: JSON past the reader's limits, or refused by it.
    """
    if raw is None:
        return None
    try:
        return kubeyaml.load_json_value(raw, source=source)
    except kubeyaml.NotJSONError:
        return raw
    except kubeyaml.ManifestError as exc:
        raise SpecError([problem_from(exc)]) from None


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
        settings = StackSettings.model_validate(values)
    except ValidationError as exc:
        problems = problems_from_validation_error(exc, source)
        raise SpecError(
            [Problem(p.source, f"raygang:{p.path}", p.message, p.accepted) for p in problems]
        ) from None
    why = _domain_problem(settings.cluster_domain)
    if why is not None:
        raise SpecError.one(
            source,
            "raygang:clusterDomain",
            why,
            "a DNS domain such as cluster.local: " + name_rules("DNS-1123 label", 63) + ", "
            "joined by '.'",
        )
    return settings


def _domain_problem(domain: str) -> str | None:
    """Why pods could not resolve names under ``domain`` (RFC 1035: labels of at most 63
    characters, 253 in all), as the kubelet's ``--cluster-domain`` is checked."""
    if len(domain) > 253:
        return f"{domain!r} is {len(domain)} characters long, more than 253"
    for label in domain.split("."):
        why = dns_problem(label, "DNS-1123 label", 63)
        if why is not None:
            return f"{domain!r} has an empty label" if not label else f"a label: {why}"
    return None


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


def stack_config_strings(path: Path, project: str = PROJECT) -> dict[str, str]:
    """Every config key of a ``Pulumi.<stack>.yaml`` with the string Pulumi hands the program
    for it, read without the Pulumi CLI.

    The file is typed as the Pulumi CLI types it (gopkg.in/yaml.v3: ``off`` is the string
    "off", ``010`` is 8, a timestamp is its Go ``String()``, null is ""); a map or list is
    its JSON text. A key without a namespace belongs to ``project``, as Pulumi namespaces it.

    Raises:
        SpecError: the file is missing, not YAML, not a stack file, or holds what Pulumi
            refuses or would read at random.
    """
    source = str(path)
    # The same bounded reader as every file (size cap, aliases, depth, long integers).
    docs = read_stack_documents(path, source)
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
    strings: dict[str, str] = {}
    for written, value in config.items():
        key = written if ":" in written else f"{project}:{written}"
        if key in strings:
            raise SpecError.one(
                source,
                f"config.{written}",
                f"is {key} again (Pulumi keeps one of the two at random)",
                "each key once, with or without its namespace",
            )
        strings[key] = kubeyaml.pulumi_config_text(value)
    return strings


def read_stack_file(path: Path, project: str = PROJECT) -> StackSettings:
    """Read ``raygang:*`` keys from a ``Pulumi.<stack>.yaml`` without the Pulumi CLI, each
    as the program receives it under ``pulumi up``: the string Pulumi hands the program
    (:func:`stack_config_strings`) through :func:`config_value`, as in the program.

    Raises:
        SpecError: as :func:`stack_config_strings`, an unknown ``raygang:`` key, or a value
            settings refuse.
    """
    source = str(path)
    ours = {
        k: v for k, v in stack_config_strings(path, project).items() if k.startswith("raygang:")
    }
    unknown = unknown_key_problems(ours, source, prefix="config.")
    if unknown:
        raise SpecError(unknown)
    values = {
        key.split(":", 1)[1]: config_value(text, f"{source} config.{key}")
        for key, text in ours.items()
    }
    return settings_from_getter(values.get, source)
