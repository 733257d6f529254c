"""JSON decoded as Go's ``encoding/json`` decodes it (``decode.go``), bounded.

The value count is bounded from the text before Python's decoder builds anything. Integers
past int64's 20 digits and floats past float64's range are refused. ``NaN`` and
``Infinity`` are not JSON to Go, so kubectl then tries YAML. Duplicate keys are refused.
Each finished value is checked for depth, node count (per document) and lone surrogates,
without recursion.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Final

from raygang.kube.kubeyaml.limits import SIZED_BY
from raygang.kube.kubeyaml.state import JSONValue, Stream

__all__ = [
    "JSON_WS",
    "SURROGATE",
    "NotGoJSON",
    "bound_json_text",
    "check_text",
    "check_tree",
    "json_decoder",
    "object_label",
]


JSON_WS: Final = re.compile(r"[ \t\n\r]*")

_STRING_LITERAL: Final = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def bound_json_text(text: str, st: Stream) -> None:
    """Python's json builds each value at once: bound the work of the whole text first,
    cheaply (an upper bound counting structure characters, exact once strings are taken
    out), against the file's bound; each value is then counted against the document's."""
    lims = st.limits
    rough = sum(text.count(c) for c in "[{,:")
    if (
        rough > lims.max_values
        and sum(_STRING_LITERAL.sub("", text).count(c) for c in "[{,:") > lims.max_values
    ):
        raise st.limit(
            f"holds more than {lims.max_values} JSON values",
            f"at most {lims.max_values} values per file (Limits.max_values; {SIZED_BY})",
            lims.max_values,
        )


def json_decoder(st: Stream) -> json.JSONDecoder:
    return json.JSONDecoder(
        object_pairs_hook=_json_object(st),
        parse_int=_json_int(st),
        parse_float=_json_float(st),
        parse_constant=_json_constant,
    )


def _json_object(st: Stream) -> Callable[[list[tuple[str, JSONValue]]], dict[str, JSONValue]]:
    def build(pairs: list[tuple[str, JSONValue]]) -> dict[str, JSONValue]:
        out = dict(pairs)
        if st.refuse_duplicates and len(out) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    raise st.error(
                        f"has the key {key!r} twice in one object",
                        "each key once (kubectl would keep the last)",
                    )
                seen.add(key)
        return out

    return build


def _json_int(st: Stream) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if len(text.lstrip("-")) > 20:
            raise st.error(
                f"has the integer {text[:30]}... ({len(text)} digits)",
                "an integer the API server can read (int64; at most 20 digits)",
            )
        return int(text)

    return parse


def _json_float(st: Stream) -> Callable[[str], float]:
    def parse(text: str) -> float:
        number = float(text)
        if math.isinf(number):
            raise st.error(f"has the number {text[:30]} past float64's range", "a finite number")
        return number

    return parse


class NotGoJSON(Exception):
    """Text Python's json takes and Go's does not (NaN, Infinity): Go then tries YAML."""


def _json_constant(text: str) -> float:
    raise NotGoJSON(text)


def object_label(value: object) -> str | None:
    """``Kind namespace/name`` of a decoded document, or None (named in limit errors)."""
    if not isinstance(value, dict) or not isinstance(value.get("kind"), str):
        return None
    label: str = value["kind"][:100]
    meta = value.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    if isinstance(name, str):
        namespace = meta.get("namespace") if isinstance(meta, dict) else None
        label += " " + (f"{namespace}/" if isinstance(namespace, str) else "") + name[:100]
    return label


def check_tree(value: object, st: Stream, line: int) -> None:
    """Depth, node count (``st.nodes``, from zero: one document) and lone surrogates of a
    JSON value, without recursion."""
    lims = st.limits
    st.nodes = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        st.nodes += 1
        if st.nodes > lims.max_nodes:
            raise st.limit(
                f"holds more than {lims.max_nodes} values",
                f"at most {lims.max_nodes} values per document (Limits.max_nodes; {SIZED_BY})",
                lims.max_nodes,
                line=line,
                obj=object_label(value),
            )
        if isinstance(item, (dict, list)):
            if depth + 1 > lims.max_depth:
                raise st.limit(
                    f"is nested more than {lims.max_depth} levels deep",
                    f"at most {lims.max_depth} levels (Limits.max_depth)",
                    lims.max_depth,
                    line=line,
                    obj=object_label(value),
                )
            if isinstance(item, dict):
                for key, element in item.items():
                    check_text(key, st, line)
                    stack.append((element, depth + 1))
            else:
                stack.extend((element, depth + 1) for element in item)
        elif isinstance(item, str):
            check_text(item, st, line)


SURROGATE: Final = re.compile("[\ud800-\udfff]")


def check_text(text: str, st: Stream, line: int | None, path: str | None = None) -> None:
    found = SURROGATE.search(text)
    if found:
        raise st.error(
            f"holds a lone surrogate \\u{ord(found.group()):04x}, which cannot be sent as UTF-8",
            "text of Unicode characters",
            line=line,
            path=path,
        )
