"""pydantic's errors in raygang's words: a Kubernetes field path, what was found, what is accepted.

The typed models (:mod:`raygang.rayjob.spec`, :mod:`raygang.kube.core`) report what pydantic
found; this module words each error as a :class:`raygang.kube.errors.Problem`, and spreads
out the findings of KubeRay's rules (errors of type :data:`KUBERAY_RULES`), each in its place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from raygang.kube.core import QUANTITY_EXAMPLES
from raygang.kube.errors import (
    MapKey,
    Problem,
    describe_hidden,
    describe_value,
    field_path,
)
from raygang.kube.secretkeys import secret_field

__all__ = [
    "KUBERAY_RULES",
    "Finding",
    "error_finding",
    "problems_from_validation_error",
]

#: One problem without its document: (field path, message, what is accepted).
Finding = tuple[str, str, str]

#: The pydantic error type of KubeRay's rules: its context holds every finding of one rule
#: set, (path, message, accepted), which :func:`problems_from_validation_error` spreads out.
KUBERAY_RULES = "kuberay_rules"


# Fields whose value is a user map: the next path element is a key the user chose (a
# resource name, a label), rendered as ['key'].
_MAP_FIELDS = frozenset(
    {
        "requests",
        "limits",
        "overhead",
        "labels",
        "annotations",
        "rayStartParams",
        "clusterSelector",
        "nodeSelector",
        "capability",
        "deserved",
    }
)

_WHOLE = ("a whole number", "a whole number without quotes, e.g. 2")
_BOOL = ("a boolean", "true or false, without quotes")
_NUMBER = ("a number", "a number without quotes, e.g. 1 or 0.5")
_MAP = ("a map", "a map (YAML 'key: value' entries)")

# A wrong type: (what the field holds, what is accepted), by pydantic's error type.
_BY_TYPE = {
    "int_type": _WHOLE,
    "int_parsing": _WHOLE,
    "int_from_float": _WHOLE,
    "bool_type": _BOOL,
    "bool_parsing": _BOOL,
    "string_type": ("a string", 'a string; quote it in YAML, e.g. "2.52.0" or "0"'),
    "float_type": _NUMBER,
    "float_parsing": _NUMBER,
    "finite_number": ("a finite number", "a finite number, e.g. 1 or 0.5"),
    "list_type": ("a list", "a list (YAML '- item' entries)"),
    "dict_type": _MAP,
    "model_type": _MAP,
    "model_attributes_type": _MAP,
    "dataclass_type": _MAP,
}

# What a missing required field should hold, by field name.
_ACCEPTED_WHEN_MISSING = {
    "apiVersion": "ray.io/v1",
    "kind": "RayJob",
    "metadata": "a map with at least a name",
    "spec": "a RayJob spec with an entrypoint and a rayClusterSpec",
    "headGroupSpec": "a head group: {rayStartParams: {}, template: {spec: {containers: [...]}}}",
    "template": "a pod template: {spec: {containers: [...]}}",
    "spec.template": "a pod spec with a containers list",
    "containers": "a list of at least one container, each with a name and an image",
    "name": "a name such as ray-head",
    "groupName": "a worker group name such as workers",
    "containerPort": "a port number such as 8265",
    "operator": "In, NotIn, Exists, DoesNotExist, Gt or Lt",
    "key": "a label key such as topology.kubernetes.io/zone",
    "nodeSelectorTerms": "a list of node selector terms",
    "weight": "a whole number from 1 to 100",
    "preference": "a node selector term",
}


def _with_map_keys(loc: Sequence[str | int]) -> list[str | int]:
    """Mark the entries of user maps, so ``requests.cpu`` prints as ``requests['cpu']``."""
    out: list[str | int] = []
    for index, part in enumerate(loc):
        parent = loc[index - 1] if index else None
        if isinstance(part, str) and isinstance(parent, str):
            grand = loc[index - 2] if index >= 2 else None
            is_map = parent in _MAP_FIELDS
            # RayJobSpec.metadata is a string map; a group's `resources` is one too.
            is_map |= parent == "metadata" and grand == "spec" and index == 2
            is_map |= parent == "resources" and (
                grand == "headGroupSpec"
                or (isinstance(grand, int) and index >= 3 and loc[index - 3] == "workerGroupSpecs")
            )
            if is_map:
                out.append(MapKey(part))
                continue
        out.append(part)
    return out


def error_finding(err: Mapping[str, Any]) -> Finding:
    """One pydantic error as (field path, message, what is accepted)."""
    raw_loc = [p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
    key_error = bool(raw_loc) and raw_loc[-1] == "[key]"
    if key_error:
        raw_loc = raw_loc[:-1]
    loc = _with_map_keys(raw_loc)
    path = field_path(loc)
    etype = str(err["type"])
    value = err.get("input")
    ctx = err.get("ctx") or {}
    last = raw_loc[-1] if raw_loc else ""
    # An env value, a runtime env, a password ...: say what it is, never what it says.
    shown = (describe_hidden if secret_field(raw_loc) else describe_value)(value)
    if key_error:
        return (
            path,
            f"YAML reads this key as {describe_value(value)}, not a string",
            "string keys; quote keys such as 1 or true in YAML",
        )
    if etype == "missing":
        accepted = _ACCEPTED_WHEN_MISSING.get(str(last), f"a value for {last}")
        if last == "spec" and len(raw_loc) > 1:
            accepted = _ACCEPTED_WHEN_MISSING["spec.template"]
        return (path, "is required but missing", accepted)
    if etype == "value_error":
        return (path, str(ctx.get("error", err["msg"])), QUANTITY_EXAMPLES)
    if etype == "literal_error":
        return (path, f"{shown} is not accepted", str(ctx.get("expected", "")))
    if etype == "too_short" and last == "containers":
        return (path, "has no containers", _ACCEPTED_WHEN_MISSING["containers"])
    if etype in _BY_TYPE:
        what, accepted = _BY_TYPE[etype]
        message = f"{shown} is not {what}"
        if etype in ("int_type", "int_from_float") and isinstance(value, float):
            message += " (YAML reads it as a number with a fraction)"
        if etype == "string_type" and isinstance(value, bool):
            message += " (YAML reads unquoted yes/no/true/false/on/off as booleans)"
        return (path, message, accepted)
    if etype == "extra_forbidden":
        return (path, "is not a known field", "remove it, or fix its spelling")
    bounds = {
        "greater_than": "more than {gt}",
        "greater_than_equal": "{ge} or more",
        "less_than": "less than {lt}",
        "less_than_equal": "{le} or less",
    }
    if etype in bounds:
        accepted = bounds[etype].format(**{k: ctx[k] for k in ("gt", "ge", "lt", "le") if k in ctx})
        return (path, f"{shown} is out of range", accepted)
    msg = str(err["msg"])
    return (
        path,
        f"{msg[:1].lower()}{msg[1:]}; got {shown}",
        "a value of the type this field declares",
    )


def problems_from_validation_error(exc: ValidationError, source: str) -> list[Problem]:
    """Turn pydantic's errors into :class:`Problem` rows with Kubernetes field paths.

    Args:
        exc: the error raised by ``model_validate``.
        source: where the document came from.

    Returns:
        One problem per pydantic error, each saying what was found and what is accepted.
    """
    return [Problem(source, *found) for found in _findings(exc)]


def _findings(exc: ValidationError) -> list[Finding]:
    """pydantic's errors as findings, each of KubeRay's rule sets spread out in its place."""
    out: list[Finding] = []
    for err in exc.errors(include_url=False):
        if err["type"] == KUBERAY_RULES:
            out += err["ctx"]["found"]
        else:
            out.append(error_finding(err))
    return out
