"""Tolerant reading of a raw RayJob manifest, and the collector of its problems.

The semantic checks read the manifest as loaded, before (or despite) structural validation
(:mod:`raygang.rayjob.spec`): a value of the wrong type reads as absent, so a check never
fails on a field the structural validation already reports. Numbers are int32 where KubeRay's
Go types are (``ray-operator/apis/ray/v1/rayjob_types.go``, ``raycluster_types.go``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from raygang.kube.core import INT32_MAX
from raygang.kube.errors import Problem, describe_value
from raygang.kube.quantity import Quantity, QuantityError

_VERSION = re.compile(r"v?([0-9]+)\.([0-9]+)(?:\.([0-9]+))?")


def as_map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def as_list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def as_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def str_map(value: object) -> dict[str, str]:
    return {k: v for k, v in as_map(value).items() if isinstance(k, str) and isinstance(v, str)}


def as_quantity(value: object) -> Quantity | None:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    try:
        return Quantity.parse(value)
    except QuantityError:
        return None


def env_of(container: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for entry in as_list(container.get("env")):
        name, value = as_str(as_map(entry).get("name")), as_str(as_map(entry).get("value"))
        if name is not None:
            out[name] = value or ""
    return out


def version_below(text: str, major: int, minor: int, patch: int) -> bool | None:
    match = _VERSION.match(text.strip())
    if not match:
        return None
    found = (int(match[1]), int(match[2]), int(match[3] or 0))
    return found < (major, minor, patch)


#: A rule's refusal: (message, what is accepted).
Refusal = tuple[str, str]


@dataclass(frozen=True)
class SubmitterRules:
    """The submitter's rules on the fields it writes into its shell, run in their place.

    They need Go's JSON and bash's parser, which live with the submitter
    (:mod:`raygang.kuberay.submitter`, a layer above this one). The loader hands them in
    (``raygang.kuberay.submitter.SUBMITTER_RULES``), so a document's problems still come in
    one list, in the order the fields are checked.

    Attributes:
        entrypoint: why the submitter cannot run ``spec.entrypoint`` (called only when the
            submitter runs it), or None.
        runtime_env: why the submitter cannot pass ``spec.runtimeEnvYAML`` to Ray, or None.
        job_id: why a non-empty ``spec.jobId`` cannot be the submission ID, or None.
    """

    entrypoint: Callable[[str], Refusal | None]
    runtime_env: Callable[[str], Refusal | None]
    job_id: Callable[[str], Refusal | None]


class Checker:
    """Collects problems for one document.

    ``parsed`` holds the quantities the structural validation already parsed, by the field
    path the checks name them with (:func:`raygang.rayjob.spec.parsed_quantities`):
    a valid manifest's quantities are parsed once, there, and read here. ``rules`` are the
    submitter's (:class:`SubmitterRules`).
    """

    def __init__(
        self,
        source: str,
        rules: SubmitterRules,
        parsed: Mapping[str, Quantity] | None = None,
    ) -> None:
        self.source = source
        self.rules = rules
        self.out: list[Problem] = []
        self.parsed: Mapping[str, Quantity] = parsed or {}

    def bad(self, path: str, message: str, accepted: str = "") -> None:
        self.out.append(Problem(self.source, path, message, accepted))

    def whole(self, path: str, value: object, low: int, what: str = "") -> int | None:
        """Check an int32 field: ``low`` to INT32_MAX."""
        number = as_int(value)
        if number is not None and not low <= number <= INT32_MAX:
            side = f"less than {low}" if number < low else f"more than {INT32_MAX} (int32)"
            self.bad(
                path,
                f"{describe_value(number)} is {side}{what}",
                f"a whole number from {low} to {INT32_MAX}",
            )
            return None
        return number
