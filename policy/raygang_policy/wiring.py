"""The pulumi_policy glue: plain data in, findings out, nothing judged here.

pulumi_policy 1.21.0 (``policy.py``) hands a policy its resources' properties behind a proxy
that raises ``UnknownValueError`` on a value unknown at preview, and turns that exception into
one advisory diagnostic ("can't run policy ... during preview"). The wrapper reads every
property into plain data first, unknowns as :data:`~raygang_policy.objects.UNKNOWN`, so a rule
judges what it can; what it cannot judge yet, and any error inside a rule, leave through the
same advisory channel. A rule's crash never crashes the pack: that would fail every preview
that runs it.
"""

from __future__ import annotations

import json
import os
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    PolicyPack,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UNKNOWN_OBJECT_VALUE, UnknownValueError

from raygang_policy.catalogue import POLICIES, PolicySpec
from raygang_policy.objects import UNKNOWN, Finding, StackResource
from raygang_policy.settings import PackSettings, enforcement_overrides

__all__ = ["PACK_NAME", "build_policies", "plain", "serve"]

PACK_NAME = "raygang"

_SCHEMA = PolicyConfigSchema(
    properties={
        "nodeShapes": {"type": "array", "items": {"type": "object"}},
        "clusterSnapshot": {"type": "string"},
        "knownQueues": {"type": "array", "items": {"type": "string"}},
    }
)


class CannotJudge(UnknownValueError):  # type: ignore[misc]
    """What a policy could not judge: the SDK reports it as advisory, whatever the level."""

    def __init__(self, message: str) -> None:
        super().__init__(UNKNOWN_OBJECT_VALUE, [])
        self.message = message


def plain(value: Any) -> Any:
    """The SDK's property proxies as dicts and lists, unknown values as ``UNKNOWN``.

    Numbers cross the engine as protobuf ``Struct`` doubles: a whole one is the integer the
    program wrote (a Queue's ``weight: 1`` arrives as 1.0, which Kubernetes would refuse as
    a non-integer).
    """
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str | bytes) or value is None:
        return value
    if isinstance(value, Mapping):
        out = {}
        for key in list(value):
            try:
                out[str(key)] = plain(value[key])
            except UnknownValueError:
                out[str(key)] = UNKNOWN
        return out
    if isinstance(value, Sequence):
        items = []
        for index in range(len(value)):
            try:
                items.append(plain(value[index]))
            except UnknownValueError:
                items.append(UNKNOWN)
        return items
    return value


def _stack_config() -> dict[str, str]:
    """The stack's configuration, as our language host passes it to the pack."""
    try:
        config = json.loads(os.environ.get("PULUMI_CONFIG") or "{}")
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in config.items()} if isinstance(config, dict) else {}


def _settings(config: Mapping[str, Any] | None) -> PackSettings:
    # A relative snapshot path starts where pulumi was run (the pack runs in its own folder).
    return PackSettings.read(_stack_config(), config, Path(os.environ.get("PWD") or "."))


def _report(findings: list[Finding], report: ReportViolation, extra: Sequence[str] = ()) -> None:
    pending = list(extra)
    for finding in findings:
        if finding.judged:
            report(finding.message, finding.urn)
        else:
            pending.append(finding.message)
    if pending:
        raise CannotJudge("\n".join(pending))


def _guarded(spec: PolicySpec, run: Any) -> None:
    try:
        run()
    except UnknownValueError:
        raise
    except Exception as exc:  # a rule's bug must not take every preview down with it
        trace = traceback.format_exc(limit=-3)
        raise CannotJudge(
            f"raygang's policy {spec.name} failed on this stack (a bug in the pack; please "
            f"report it): {type(exc).__name__}: {exc}\n{trace}"
        ) from None


def _stack_policy(spec: PolicySpec, startup: Sequence[str]) -> StackValidationPolicy:
    assert spec.stack_rule is not None
    rule = spec.stack_rule

    def validate(args: StackValidationArgs, report: ReportViolation) -> None:
        def run() -> None:
            resources = [
                StackResource(r.resource_type, r.urn, r.name, plain(r.props))
                for r in args.resources
            ]
            _report(rule(resources, _settings(args.get_config())), report, startup)

        _guarded(spec, run)

    return StackValidationPolicy(
        name=spec.name,
        description=spec.description,
        enforcement_level=EnforcementLevel(spec.level),
        validate=validate,
        config_schema=_SCHEMA,
    )


def _resource_policy(spec: PolicySpec) -> ResourceValidationPolicy:
    assert spec.resource_rule is not None
    rule = spec.resource_rule

    def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
        def run() -> None:
            resource = StackResource(args.resource_type, args.urn, args.name, plain(args.props))
            _report(rule(resource), report)

        _guarded(spec, run)

    return ResourceValidationPolicy(
        name=spec.name,
        description=spec.description,
        enforcement_level=EnforcementLevel(spec.level),
        validate=validate,
    )


def build_policies(
    stack_config: Mapping[str, str],
) -> tuple[list[StackValidationPolicy | ResourceValidationPolicy], dict[str, EnforcementLevel]]:
    """The policies, and the stack's enforcement levels (``raygang-policy:enforcement``) as
    the pack's initial configuration, which ``--policy-pack-config`` overrides."""
    levels, problems = enforcement_overrides(stack_config, [p.name for p in POLICIES])
    # The stack's unusable settings are reported by the input policy, never dropped.
    startup = [f"raygang-policy settings: {p}" for p in problems]
    policies: list[StackValidationPolicy | ResourceValidationPolicy] = [
        _stack_policy(spec, startup if spec.name == "gang-valid-input" else ())
        if spec.stack_rule is not None
        else _resource_policy(spec)
        for spec in POLICIES
    ]
    return policies, {name: EnforcementLevel(level) for name, level in levels.items()}


def serve() -> None:
    """Start the pack's gRPC server (blocks until the engine stops it)."""
    policies, initial = build_policies(_stack_config())
    PolicyPack(
        name=PACK_NAME,
        policies=list(policies),
        initial_config=dict(initial) or None,
    )
