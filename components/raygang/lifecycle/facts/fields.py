"""Tolerant readers of API object fields, for facts that must never stop a deployment.

An object a run reads may be half-written (a status the controller has not filled in yet),
edited by hand, or of an older shape. Each reader here returns the field when it has the
expected type and a neutral value (an empty mapping or list, a default, None) otherwise;
the readers of times and attempts also leave a note saying what could not be read. The
shapes read are the Kubernetes API's (``k8s.io/api/core/v1/types.go``,
``k8s.io/api/batch/v1/types.go``) as ``kubectl get -o yaml`` or the ``kubernetes`` client
returns them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from raygang.lifecycle.facts.clock import parse_now
from raygang.lifecycle.facts.model import ATTEMPT_ANNOTATION

__all__ = [
    "as_int",
    "as_list",
    "as_mapping",
    "as_str",
    "env_value",
    "read_attempt",
    "read_time",
]


def as_mapping(value: object) -> Mapping[str, Any]:
    """The value when it is a mapping, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def as_list(value: object) -> list[Any]:
    """The value when it is a list, else an empty one."""
    return value if isinstance(value, list) else []


def as_int(value: object, default: int = 0) -> int:
    """An integer, or an integer string (labels and annotations are strings); else ``default``."""
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value.strip()):
        return int(value)
    return default


def as_str(value: object) -> str | None:
    """The value when it is a string, else None."""
    return value if isinstance(value, str) else None


def read_time(value: object, what: str, notes: list[str]) -> datetime | None:
    """A time in UTC; None when unset, or when unreadable (with a note naming ``what``)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        # The kubernetes client returns datetimes; YAML may too (PyYAML's timestamp type).
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    try:
        return parse_now(str(value))
    except ValueError:
        notes.append(f"{what} {value!r} is not an RFC 3339 time; ignored")
        return None


def read_attempt(meta: Mapping[str, Any], what: str, notes: list[str]) -> int | None:
    """The attempt annotation of an object's ``metadata``; None when unset or not positive."""
    raw = as_mapping(meta.get("annotations")).get(ATTEMPT_ANNOTATION)
    if raw is None:
        return None
    value = as_int(raw, -1)
    if value < 1:
        notes.append(
            f"{what} annotation {ATTEMPT_ANNOTATION}={raw!r} is not a positive number; ignored"
        )
        return None
    return value


def env_value(containers: Iterable[Any], name: str, only: str | None = None) -> str | None:
    """The literal value of env var ``name`` in the containers (only the one named ``only``)."""
    for container in containers:
        c = as_mapping(container)
        if only is not None and c.get("name") != only:
            continue
        for env in as_list(c.get("env")):
            e = as_mapping(env)
            if e.get("name") == name and isinstance(e.get("value"), str):
                return str(e["value"])
    return None
