"""Reading manifests as kubectl does: YAML streams, duplicate keys refused, JSON-only values.

kubectl decodes YAML through ``sigs.k8s.io/yaml`` into JSON (strict decoding refuses duplicate
keys; a timestamp stays the text it reads as), so a manifest that could not be sent as JSON is
refused here, with the field path.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from raygang.kube.errors import MapKey, Problem, SpecError, describe_value, field_path

__all__ = ["MAX_VALUES"]


# More values than any real RayJob has; a document past it is an alias bomb or a mistake.
MAX_VALUES = 200_000


# --- YAML -------------------------------------------------------------------------------
class _Loader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys and keeps timestamps as text."""


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: dict[object, yaml.Node] = {}
    for key_node, _ in node.value:
        # Merge keys (<<) may be overridden by explicit keys: that is YAML, not a mistake.
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node, deep=True)
        try:
            first = seen.get(key)
        except TypeError:
            continue  # unhashable: construct_mapping reports it
        if first is not None:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                f"found duplicate key {key!r} (first at line {first.start_mark.line + 1}); "
                "kubectl refuses duplicate keys and PyYAML would keep only the last value",
                key_node.start_mark,
            )
        seen[key] = key_node
    return loader.construct_mapping(node, deep=True)


def _construct_text(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    # kubectl's YAML-to-JSON keeps an unquoted 2024-01-01 as the string it reads as.
    assert isinstance(node, yaml.ScalarNode)
    return loader.construct_scalar(node)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)

_Loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_text)


def yaml_documents(path: Path, label: str, accepted: str) -> list[tuple[str, object]]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SpecError.one(label, "<file>", "is not UTF-8 text", "a YAML file") from None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise SpecError.one(
            label, "<file>", f"cannot be read: {reason}", "a readable YAML file"
        ) from None
    try:
        docs = list(yaml.load_all(text, Loader=_Loader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "<file>"
        reason = getattr(exc, "problem", None) or str(exc)
        raise SpecError.one(
            label, where, f"is not valid YAML: {reason}", "a YAML document stream"
        ) from None
    except RecursionError:
        raise SpecError.one(
            label, "<file>", "is nested too deeply to read", "a Kubernetes manifest"
        ) from None
    present = [d for d in docs if d is not None]
    if not present:
        raise SpecError.one(label, "<file>", "holds no YAML document", accepted)
    many = len(present) > 1
    out: list[tuple[str, object]] = []
    for index, doc in enumerate(docs):
        if doc is not None:
            out.append((f"{label} (document {index + 1})" if many else label, doc))
    return out


# --- JSON compatibility -----------------------------------------------------------------
def json_problems(doc: object, source: str) -> list[Problem]:
    """What the API server could not receive: non-string keys, NaN, odd types, bombs.

    Walks iteratively with a value budget, so neither deep nesting nor alias expansion can
    exhaust the stack or the memory.
    """
    problems: list[Problem] = []
    stack: list[tuple[object, tuple[str | int, ...]]] = [(doc, ())]
    count = 0
    while stack:
        value, loc = stack.pop()
        count += 1
        if count > MAX_VALUES:
            return [
                Problem(
                    source,
                    "<document>",
                    f"expands to more than {MAX_VALUES} values (YAML aliases?)",
                    "a manifest of ordinary size, without alias expansion",
                )
            ]
        kind = type(value)
        if kind is str or kind is int or kind is bool or value is None:
            continue  # the common leaves, without the (slow) ABC check below
        if isinstance(value, Mapping):
            for key, item in reversed(list(value.items())):
                if not isinstance(key, str):
                    problems.append(
                        Problem(
                            source,
                            field_path([*loc, MapKey(str(key))]),
                            f"YAML reads this key as {describe_value(key)}, not a string",
                            "string keys; quote keys such as 1, true or null in YAML",
                        )
                    )
                    continue
                stack.append((item, (*loc, key)))
        elif isinstance(value, list):
            stack.extend((item, (*loc, i)) for i, item in reversed(list(enumerate(value))))
        elif isinstance(value, float) and not math.isfinite(value):
            problems.append(
                Problem(
                    source,
                    field_path(loc),
                    f"{describe_value(value)} cannot be sent as JSON",
                    "a finite number",
                )
            )
        elif value is not None and not isinstance(value, str | int | float):
            problems.append(
                Problem(
                    source,
                    field_path(loc),
                    f"{describe_value(value)} cannot be sent as JSON",
                    "a string, number, boolean, list or map",
                )
            )
    return problems
