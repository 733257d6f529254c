"""The canonical text of a quantity: the shortest exact form in its format.

Follows ``CanonicalizeBytes`` in k8s.io/apimachinery ``pkg/api/resource/quantity.go`` (with
``AsCanonicalBytes`` and ``AsCanonicalBase1024Bytes`` of ``amount.go``), which is what
``String()`` prints once no parsed text is kept.
"""

from __future__ import annotations

from raygang.kube.quantity.suffixes import (
    BIN,
    BINARY_SUFFIX_BY_POWER,
    DECIMAL_SUFFIX_BY_EXP,
    EXP,
    NANO,
    Format,
)

__all__ = ["canonicalize"]


def _int_to_str(value: int) -> str:
    """``str`` for non-negative ints, including those above Python's digit limit."""
    try:
        return str(value)
    except ValueError:
        chunk = 10**1000
        parts: list[str] = []
        while value >= chunk:
            value, low = divmod(value, chunk)
            parts.append(format(low, "01000d"))
        parts.append(str(value))
        return "".join(reversed(parts))


def canonicalize(nanos: int, fmt: Format) -> str:
    """Go's ``CanonicalizeBytes``: the shortest exact form in ``fmt``."""
    if nanos == 0:
        return "0"
    sign = "-" if nanos < 0 else ""
    magnitude = -nanos if nanos < 0 else nanos
    if fmt is BIN and magnitude >= 1024 * NANO and magnitude % NANO == 0:
        mantissa = magnitude // NANO
        power = 0
        while mantissa % 1024 == 0:
            mantissa //= 1024
            power += 1
        suffix = BINARY_SUFFIX_BY_POWER[power] if power < len(BINARY_SUFFIX_BY_POWER) else ""
        return f"{sign}{mantissa}{suffix}"
    # BinarySI values below 1024 or with a fraction print as DecimalSI in Go.
    digits = _int_to_str(magnitude)
    mantissa_digits = digits.rstrip("0")
    exponent = len(digits) - len(mantissa_digits) - 9
    pad = exponent % 3
    if pad:
        mantissa_digits += "0" * pad
        exponent -= pad
    if fmt is EXP:
        suffix = f"e{exponent}" if exponent else ""
    else:
        suffix = DECIMAL_SUFFIX_BY_EXP.get(exponent, "")
    return f"{sign}{mantissa_digits}{suffix}"
