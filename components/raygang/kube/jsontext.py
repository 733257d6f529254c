"""Indented JSON text, byte for byte what ``json.dumps(value, indent=2)`` writes.

The standard library writes indented JSON in pure Python, a generator per container and
a ``yield`` per token (its C encoder only handles the compact form). Job records and
``raygang plan --format json`` are indented, so that diffs show a line per field; that
encoding was the largest single cost of planning a job. This module writes the same text
with one call per container and the standard library's C string escaping.

Anything outside plain JSON trees (non-string keys, subclasses, other objects, cycles)
is handed to ``json.dumps`` itself, so the output and the errors stay the standard ones.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any

__all__ = ["dumps_indented"]

_STEP = "  "
_INFINITY = float("inf")


class _NotPlain(Exception):
    """A value the fast path does not write; ``json.dumps`` writes it instead."""


def dumps_indented(value: Any, *, sort_keys: bool = False, ensure_ascii: bool = True) -> str:
    """``json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=ensure_ascii)``.

    Args:
        value: a tree of dicts (string keys), lists, tuples, strings, ints, floats,
            booleans and None; anything else goes to ``json.dumps`` unchanged.
        sort_keys: write each dict's keys sorted, as ``json.dumps`` does.
        ensure_ascii: escape non-ASCII characters, as ``json.dumps`` does.

    Returns:
        The same text as ``json.dumps`` (no trailing newline).
    """
    parts: list[str] = []
    try:
        _write(
            value,
            parts.append,
            "\n",
            encode_basestring_ascii if ensure_ascii else encode_basestring,
            sort_keys,
        )
    except (_NotPlain, RecursionError):
        return json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
    return "".join(parts)


def _write(
    value: Any,
    emit: Callable[[str], None],
    newline: str,
    string: Callable[[str], str],
    sort_keys: bool,
) -> None:
    kind = type(value)
    if kind is str:
        emit(string(value))
    elif kind is dict:
        if not value:
            emit("{}")
            return
        inner = newline + _STEP
        keys = list(value)
        for key in keys:
            if type(key) is not str:
                raise _NotPlain  # json converts or rejects other keys: let it
        if sort_keys:
            keys.sort()
        separator = "{" + inner
        for key in keys:
            emit(separator)
            emit(string(key))
            emit(": ")
            item = value[key]
            if type(item) is str:
                emit(string(item))
            else:
                _write(item, emit, inner, string, sort_keys)
            separator = "," + inner
        emit(newline + "}")
    elif kind is list or kind is tuple:
        if not value:
            emit("[]")
            return
        inner = newline + _STEP
        separator = "[" + inner
        for item in value:
            emit(separator)
            if type(item) is str:
                emit(string(item))
            else:
                _write(item, emit, inner, string, sort_keys)
            separator = "," + inner
        emit(newline + "]")
    elif value is None:
        emit("null")
    elif value is True:
        emit("true")
    elif value is False:
        emit("false")
    elif kind is int:
        emit(int.__repr__(value))
    elif kind is float:
        emit(_float(value))
    else:
        raise _NotPlain


def _float(value: float) -> str:
    # json's floatstr with allow_nan: repr, and JavaScript's names for the non-finite.
    if value != value:
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return float.__repr__(value)
