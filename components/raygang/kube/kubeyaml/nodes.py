"""One YAML node as written, and the small pieces of go-yaml v2's ``decode.go`` the composer
shares.

A node keeps its JSON value, a mapping's Go map (typed keys, for merges), go-yaml's decode
count with aliases expanded, and its height. Next to it: the ``<<`` test (``isMerge``), a
go-yaml scalar's JSON value, an iterative copy of a JSON tree (an alias is a copy), and a
key's segment of a field path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Final, cast

from raygang.kube.kubeyaml.encode import go_float64
from raygang.kube.kubeyaml.resolve import MERGE, GoFloat, GoScalar

__all__ = [
    "NULL_DOC",
    "Node",
    "copy_json",
    "is_merge",
    "json_scalar",
    "path_segment",
]


NULL_DOC: Final = object()


class Node:
    """One node as written. ``json`` is its value as kubectl sends it; ``gomap`` a mapping's
    Go map (typed keys) kept for merges; ``ops`` go-yaml's decode count with aliases.

    Defaults live on the class: most nodes are scalars that set three attributes, and this
    runs once per node of the input."""

    tag = ""
    implicit = False
    text = ""
    name = ""
    target: Node | None = None
    json: object = None
    gomap: dict[tuple[object, ...], tuple[str, object]] | None = None
    ops = 1
    height = 0
    go: GoScalar = None
    children: list[Node]

    def __init__(self, kind: str, line: int) -> None:
        self.kind = kind  # "scalar", "seq", "map", "alias"
        self.line = line


def is_merge(key: Node) -> bool:
    return key.kind == "scalar" and key.text == "<<" and (key.implicit or key.tag == MERGE)


def json_scalar(go: GoScalar) -> object:
    if isinstance(go, GoFloat):
        text = go_float64(go)
        if text.lstrip("-").isdigit() and text != "-0":
            return int(text)  # what json.loads makes of encoding/json's text
        return float(go)
    return go


def copy_json(value: object, leaf: Callable[[object], object] | None = None) -> object:
    """A deep copy of a JSON tree, iteratively (aliases are copied so edits stay local),
    with ``leaf`` applied to every value that is not a map or a list, when given."""
    if not isinstance(value, (dict, list)):
        return value if leaf is None else leaf(value)
    root: dict[str, object] | list[object] = {} if isinstance(value, dict) else []
    stack: list[tuple[object, dict[str, object] | list[object]]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        assert isinstance(source, (dict, list))
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, element in items:
            if isinstance(element, (dict, list)):
                child: dict[str, object] | list[object] = {} if isinstance(element, dict) else []
                stack.append((element, child))
                element = child
            elif leaf is not None:
                element = leaf(element)
            if isinstance(target, dict):
                target[cast(str, key)] = element
            else:
                target.append(element)
    return root


_IDENT: Final = re.compile(r"[A-Za-z0-9_-]+")


def path_segment(key: str) -> str:
    return "." + key if _IDENT.fullmatch(key) else f"[{json.dumps(key[:80])}]"
