"""Resource lists (``{name: quantity}``): parse, print, sum, scale and take the maximum.

Follows ``ResourceList`` of k8s.io/api ``core/v1`` over k8s.io/apimachinery
``pkg/api/resource/quantity.go``, KubeRay's ``SumResourceList``
(``ray-operator/controllers/ray/utils/util.go``) and the per-name maximum of the pod request
helpers in k8s.io/component-helpers ``resource/helpers.go``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from raygang.kube.quantity.errors import QuantityError, quote
from raygang.kube.quantity.value import Quantity

__all__ = [
    "format_resource_list",
    "max_resource_lists",
    "parse_resource_list",
    "scale_resource_list",
    "sum_resource_lists",
]


def parse_resource_list(raw: Mapping[str, object]) -> dict[str, Quantity]:
    """Parse a ``{name: quantity}`` mapping such as a container's ``requests``.

    Raises:
        QuantityError: Naming the resource, e.g.
            ``resource "cpu": invalid quantity "2 cores": expected ...``.
    """
    parsed: dict[str, Quantity] = {}
    for name, text in raw.items():
        try:
            parsed[name] = Quantity.parse(text)  # type: ignore[arg-type]
        except QuantityError as err:
            raise QuantityError(f"resource {quote(name)}: {err}", err.text) from err
    return parsed


def format_resource_list(resources: Mapping[str, Quantity]) -> dict[str, str]:
    """Print every quantity as Go would, keys sorted like Go's JSON encoding of maps."""
    return {name: str(resources[name]) for name in sorted(resources)}


def sum_resource_lists(lists: Iterable[Mapping[str, Quantity]]) -> dict[str, Quantity]:
    """KubeRay's ``SumResourceList``.

    The first quantity seen for a name is taken as is, so it keeps its parsed
    text (Go deep-copies it, cached string included); later ones are added
    with ``+``. Names with a zero total are kept.

    Args:
        lists: Resource lists, in summation order.

    Returns:
        The totals, keyed in first-seen order.
    """
    total: dict[str, Quantity] = {}
    for resources in lists:
        for name, quantity in resources.items():
            current = total.get(name)
            total[name] = quantity if current is None else current + quantity
    return total


def scale_resource_list(resources: Mapping[str, Quantity], k: int) -> dict[str, Quantity]:
    """Multiply every quantity by ``k`` with Go's ``Mul``; ``k = 0`` keeps the names."""
    return {name: quantity * k for name, quantity in resources.items()}


def max_resource_lists(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> dict[str, Quantity]:
    """Per-name numeric maximum, as used for effective pod requests.

    On a tie the quantity from ``a`` is kept (with its text and format).

    Returns:
        ``a``'s names in order, then the names only ``b`` has.
    """
    result = dict(a)
    for name, quantity in b.items():
        current = result.get(name)
        if current is None or quantity > current:
            result[name] = quantity
    return result
