"""Copying the JSON-shaped trees manifests are made of.

``copy.deepcopy`` handles any object graph, with a memo and a dispatch per value, and
keeps aliases shared: two pod templates written as one YAML anchor would stay one
object, and an annotation added to one would appear on the other. Manifests are trees
of dicts, lists and scalars; copying them as trees is about four times faster and gives
every path its own object.
"""

from __future__ import annotations

import copy
from typing import TypeVar

__all__ = ["copy_tree"]

T = TypeVar("T")

_SCALARS = (str, int, float, bool, type(None))


def copy_tree(value: T) -> T:
    """A deep copy of ``value``: new dicts and lists all the way down.

    Scalars are immutable and shared; anything else (not found in manifests) falls back
    to ``copy.deepcopy``.
    """
    kind = type(value)
    if kind is dict:
        return {k: copy_tree(v) for k, v in value.items()}  # type: ignore[attr-defined,return-value]
    if kind is list:
        return [copy_tree(v) for v in value]  # type: ignore[attr-defined,return-value]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)
