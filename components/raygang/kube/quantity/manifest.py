"""Quantities read from many manifests: one parsed object for each recent text.

``ParseQuantity`` of k8s.io/apimachinery ``pkg/api/resource/quantity.go`` has no such cache;
this is raygang's own, safe because a ``Quantity`` is immutable.
"""

from __future__ import annotations

import functools

from raygang.kube.quantity.value import Quantity

__all__ = ["parse_manifest_quantity"]


@functools.lru_cache(maxsize=4096)
def _parse_remembered(kind: str, text: str | int) -> Quantity:
    del kind  # in the key only: 1 and "1" are parsed alike, but kept apart
    return Quantity.parse(text)


def parse_manifest_quantity(text: str | int) -> Quantity:
    """``Quantity.parse`` for readers of many manifests, remembering recent texts.

    A stack repeats a handful of quantities (``"1"``, ``"4Gi"``) thousands of times, and
    each is read twice (validation, then the typed model). Quantities are immutable, so
    one parsed object serves every occurrence. Errors are raised anew each time.
    """
    return _parse_remembered(type(text).__name__, text)
