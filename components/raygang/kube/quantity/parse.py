"""The parts of parsing a quantity that need no ``Quantity``: grammar, exponents, rounding.

Follows ``parseQuantityString`` and the exponent handling of ``ParseQuantity`` in
k8s.io/apimachinery ``pkg/api/resource/quantity.go``, including Go's int32 wrapping of the
scale; ``value.Quantity.parse`` puts these pieces together. ``coerce`` turns a YAML scalar into
the text it was written as, before any of that.
"""

from __future__ import annotations

import re
from typing import Final

from raygang.kube.quantity.errors import fail
from raygang.kube.quantity.suffixes import INT64_MAX

__all__ = [
    "INT32_MAX",
    "INT32_MIN",
    "MAX_DIGITS",
    "MAX_EXPONENT",
    "ceil_div",
    "check_exponent",
    "coerce",
    "fullmatch",
    "interpret_exponent",
    "scale_up",
    "wrap_int32",
]

# Go would accept larger numbers (it keeps them as unscaled big decimals), but
# nothing real needs them and Python refuses to print integers of more than
# 4300 digits by default. These limits keep every value well below that.
MAX_DIGITS: Final = 1000
MAX_EXPONENT: Final = 1000

INT32_MIN: Final = -(1 << 31)
INT32_MAX: Final = (1 << 31) - 1

# The same grammar as Go's hand-written scanner: sign, leading zeros (which Go
# strips before measuring precision), integer digits, optional "." and
# fraction, then a suffix made of suffix letters, an optional sign and digits.
# Whether the suffix means anything is decided afterwards, as Go does.
_QUANTITY_RE: Final = re.compile(r"([+-]?)(0*)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[+-]?[0-9]*)")
_EXPONENT_RE: Final = re.compile(r"[eE]([+-]?)0*([0-9]+)")
fullmatch: Final = _QUANTITY_RE.fullmatch


def interpret_exponent(suffix: str) -> int | None:
    """Return the int32 exponent of an ``e<N>`` suffix, or None if it is not one.

    Go parses ``N`` as an int64 and then converts it to int32, which wraps.
    """
    match = _EXPONENT_RE.fullmatch(suffix)
    if match is None:
        return None
    sign, digits = match.groups()
    if len(digits) > 19:
        return None
    exponent = -int(digits) if sign == "-" else int(digits)
    if not -INT64_MAX - 1 <= exponent <= INT64_MAX:
        return None
    return wrap_int32(exponent)


def check_exponent(text: str, scale: int) -> None:
    if scale > MAX_EXPONENT:
        fail(text, f"exponent out of the supported range (at most {MAX_EXPONENT})")


def wrap_int32(value: int) -> int:
    return ((value - INT32_MIN) & 0xFFFFFFFF) + INT32_MIN


def ceil_div(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def coerce(text: object) -> str:
    """Turn a YAML scalar into the text it was written as."""
    if isinstance(text, str):
        return str(text)
    if isinstance(text, bool):
        fail(text, "a bool is not a quantity")
    if isinstance(text, int):
        try:
            return str(text)
        except ValueError:
            fail(text, f"more than {MAX_DIGITS} significant digits")
    if isinstance(text, float):
        if text != text or text in (float("inf"), float("-inf")):
            fail(text, "not a finite number")
        return repr(text)
    fail(text, f"a {type(text).__name__} is not a quantity")


def scale_up(mantissa: int, digit_bound: int, power: int) -> int:
    """Return ``ceil(mantissa * 10**power)`` for ``0 <= mantissa < 10**digit_bound``."""
    if power >= 0:
        scaled: int = mantissa * 10**power
        return scaled
    if -power >= digit_bound:
        # Below one nano: Go rounds any non-zero amount up to 1n.
        return 1 if mantissa else 0
    return ceil_div(mantissa, 10**-power)
