"""Formats, suffixes and the nano unit every quantity is counted in.

Follows k8s.io/apimachinery ``pkg/api/resource/suffix.go`` (the suffix tables, both ways) and
the ``Format`` constants of ``quantity.go``; ``FAST_DIGITS`` and ``INT64_MAX`` are the limits of
the int64 fast path of ``amount.go``.
"""

from __future__ import annotations

import enum
from typing import Final

__all__ = [
    "BIN",
    "BINARY_CAP_NANOS",
    "BINARY_SUFFIX_BY_POWER",
    "DEC",
    "DECIMAL_SUFFIX_BY_EXP",
    "EXP",
    "FAST_DIGITS",
    "INT64_MAX",
    "NANO",
    "SUFFIXES",
    "Format",
]

NANO: Final = 1_000_000_000

# Go caps parsed BinarySI magnitudes at the largest int64.
BINARY_CAP_NANOS: Final = ((1 << 63) - 1) * NANO

# Go's fast path stores the mantissa in an int64, which holds any 18 digits.
FAST_DIGITS: Final = 18

INT64_MAX: Final = (1 << 63) - 1


class Format(enum.Enum):
    """How a quantity prints; the values are Go's ``resource.Format`` names."""

    DECIMAL_SI = "DecimalSI"
    BINARY_SI = "BinarySI"
    DECIMAL_EXPONENT = "DecimalExponent"


DEC: Final = Format.DECIMAL_SI
BIN: Final = Format.BINARY_SI
EXP: Final = Format.DECIMAL_EXPONENT

# (base, exponent, format) for every fixed suffix Go knows.
SUFFIXES: Final[dict[str, tuple[int, int, Format]]] = {
    "": (10, 0, DEC),
    "n": (10, -9, DEC),
    "u": (10, -6, DEC),
    "m": (10, -3, DEC),
    "k": (10, 3, DEC),
    "M": (10, 6, DEC),
    "G": (10, 9, DEC),
    "T": (10, 12, DEC),
    "P": (10, 15, DEC),
    "E": (10, 18, DEC),
    "Ki": (2, 10, BIN),
    "Mi": (2, 20, BIN),
    "Gi": (2, 30, BIN),
    "Ti": (2, 40, BIN),
    "Pi": (2, 50, BIN),
    "Ei": (2, 60, BIN),
}

# Go prints no suffix at all for exponents missing from its tables (10^21 in
# DecimalSI prints as "1"); ``dict.get(e, "")`` reproduces that.
DECIMAL_SUFFIX_BY_EXP: Final = {
    exp: suffix for suffix, (base, exp, _) in SUFFIXES.items() if base == 10
}
BINARY_SUFFIX_BY_POWER: Final = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
