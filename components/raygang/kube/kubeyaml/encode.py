"""Values printed as Go's ``encoding/json`` prints them (``encode.go``): the bytes kubectl
sends.

Keys are sorted; ``<``, ``>``, ``&`` and U+2028/2029 are escaped, as Marshal does; a float64
is printed in its shortest form that reads back, fixed inside [1e-6, 1e21) and with an
exponent outside it (``floatEncoder``). The printer is iterative, so no depth of value
recurses.
"""

from __future__ import annotations

import math
import re
from typing import Final

from raygang.kube.kubeyaml.state import JSONValue

__all__ = [
    "fixed",
    "go_float64",
    "json_number_text",
    "to_json",
]


def to_json(value: JSONValue) -> str:
    """The bytes encoding/json prints for ``value`` (sorted keys, Go's escapes and numbers)."""
    out: list[str] = []
    # Iterative: a value may be as deep as Limits allow, or deeper if built by hand.
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Raw):
            out.append(item.text)
        elif isinstance(item, dict):
            out.append("{")
            parts: list[object] = []
            for i, key in enumerate(sorted(item)):
                parts.append(_Raw(("," if i else "") + _go_string(key) + ":"))
                parts.append(item[key])
            parts.append(_Raw("}"))
            stack.extend(reversed(parts))
        elif isinstance(item, list):
            out.append("[")
            parts = []
            for i, element in enumerate(item):
                if i:
                    parts.append(_Raw(","))
                parts.append(element)
            parts.append(_Raw("]"))
            stack.extend(reversed(parts))
        elif isinstance(item, str):
            out.append(_go_string(item))
        elif item is None:
            out.append("null")
        elif isinstance(item, bool):
            out.append("true" if item else "false")
        elif isinstance(item, (int, float)):
            out.append(json_number_text(item))
        else:
            raise TypeError(f"not a JSON value: {type(item).__name__}")
    return "".join(out)


def json_number_text(number: int | float) -> str:
    """The JSON text kubectl sends for a number read here (``1e3`` -> ``1000``): the text a
    Kubernetes quantity field parses, and the test of "integer" in a CRD schema."""
    if isinstance(number, bool):
        raise TypeError("a bool is not a JSON number")
    if isinstance(number, int):
        if number.bit_length() > 256:  # never produced here; keeps str() far from its limit
            raise ValueError("integer too large for JSON text here")
        return str(number)
    return go_float64(number)


class _Raw:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _digits(number: float) -> tuple[str, int]:
    """Shortest round-trip digits and the decimal point: number = 0.DIGITS * 10**point
    (Python's repr and Go's shortest formatting both give the shortest digits that read back,
    the closest on a tie)."""
    mantissa, _, exponent = repr(abs(number)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    significant = digits.lstrip("0")
    point = len(whole) + int(exponent or 0) - (len(digits) - len(significant))
    return significant.rstrip("0") or "0", point


def go_float64(number: float) -> str:
    """encoding/json's text for a finite float64 (ES6 style: %f, %e outside [1e-6, 1e21))."""
    if not math.isfinite(number):
        raise ValueError(f"JSON has no {number}")
    if number == 0:
        return "-0" if math.copysign(1, number) < 0 else "0"
    sign = "-" if number < 0 else ""
    digits, point = _digits(number)
    if abs(number) < 1e-6 or abs(number) >= 1e21:
        exp = point - 1
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp)}"
    return sign + fixed(digits, point)


def fixed(digits: str, point: int) -> str:
    if point <= 0:
        return "0." + "0" * -point + digits
    if point >= len(digits):
        return digits + "0" * (point - len(digits))
    return digits[:point] + "." + digits[point:]


_GO_ESCAPE: Final = re.compile('[\x00-\x1f"\\\\<>&\u2028\u2029]')


_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def _go_string(text: str) -> str:
    """encoding/json's string: <, >, & and U+2028/2029 escaped, as Marshal does."""
    return (
        '"'
        + _GO_ESCAPE.sub(lambda m: _ESCAPES.get(m.group(), f"\\u{ord(m.group()):04x}"), text)
        + '"'
    )
