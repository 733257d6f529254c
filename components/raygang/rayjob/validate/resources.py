"""A container's ``resources``: what Kubernetes' ``ValidateResourceRequirements`` refuses.

Follows ``pkg/apis/core/validation/validation.go`` (Kubernetes): quantities are not negative,
a request is at most its limit, and extended resources (and hugepages), which cannot be
overcommitted, come as whole numbers with a limit equal to the request.

The quantities are the typed model's when the manifest passed structural validation
(:func:`raygang.rayjob.spec.parsed_quantities`), so each is parsed once; otherwise the raw
text is read here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from raygang.kube.errors import describe_value
from raygang.kube.quantity import Quantity
from raygang.rayjob.validate.read import Checker, as_map, as_quantity


def _is_extended(name: str) -> bool:
    """Kubernetes' ``!isOvercommitAllowed``: extended resources and hugepages."""
    domain = name.split("/", 1)[0] if "/" in name else ""
    native = not domain or domain == "kubernetes.io" or domain.endswith(".kubernetes.io")
    return not native or name.startswith("hugepages-")


def check_resources(c: Checker, path: str, resources: Mapping[str, Any]) -> None:
    """Kubernetes' ValidateResourceRequirements on one container."""
    parsed: dict[str, dict[str, Quantity]] = {}
    for part in ("requests", "limits"):
        parsed[part] = {}
        for name, value in as_map(resources.get(part)).items():
            if not isinstance(name, str):
                continue
            where = f"{path}.{part}[{name!r}]"
            q = c.parsed.get(where)
            if q is None:
                q = as_quantity(value)
            if q is None:
                continue
            if q < Quantity.zero():
                c.bad(where, f"{describe_value(value)} is negative", "0 or more")
                continue
            if (
                _is_extended(name)
                and not name.startswith("hugepages-")
                and q.value.denominator != 1
            ):
                c.bad(where, f"{describe_value(value)} is not a whole number", "a whole number")
            parsed[part][name] = q
    requests, limits = parsed["requests"], parsed["limits"]
    for name, request in requests.items():
        where = f"{path}.requests[{name!r}]"
        limit = limits.get(name)
        if limit is not None and request > limit:
            c.bad(
                where,
                f"request {request} is more than the limit {limit}",
                f"a request <= limits[{name!r}]",
            )
        elif _is_extended(name) and limit is None:
            c.bad(
                where,
                f"{name} is an extended resource, which cannot be overcommitted: Kubernetes "
                "requires a limit for it",
                f"limits[{name!r}] equal to the request (or only the limit)",
            )
        elif _is_extended(name) and limit is not None and request != limit:
            c.bad(
                where,
                f"request {request} differs from the limit {limit}; {name} cannot be overcommitted",
                "a request equal to the limit",
            )
