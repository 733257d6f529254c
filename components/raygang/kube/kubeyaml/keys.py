"""Map keys turned into JSON object keys as sigs.k8s.io/yaml's ``yaml.go`` turns them
(``convertToJSONableObject``).

Booleans and ints become their text, and floats float32 ``%g`` text
(``strconv.FormatFloat(f, 'g', -1, 32)``). Null keys, keys of 2**63 or more and collection
keys are refused, the first two only where the key survives go-yaml's decoding.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from decimal import Decimal, localcontext
from typing import TypeAlias

from raygang.kube.kubeyaml.encode import fixed
from raygang.kube.kubeyaml.limits import ManifestError
from raygang.kube.kubeyaml.nodes import Node
from raygang.kube.kubeyaml.resolve import INT64, GoFloat

__all__ = [
    "BadKey",
    "GoKey",
    "KeyMaker",
]


GoKey: TypeAlias = "tuple[object, ...]"


class KeyMaker:
    """The Go map keys of one document: the counters that keep NaN keys and unconvertible
    keys apart, and ``_err``, which makes an error at the composer's current path."""

    def __init__(self, err: Callable[[str, str, int | None], ManifestError]) -> None:
        self._err = err
        self.nan_keys = 0
        self.bad_keys = 0

    def go_key(self, key: Node) -> tuple[GoKey, str]:
        """The Go map key (type and value) and its JSON text, as sigs.k8s.io/yaml makes it."""
        node = key.target if key.kind == "alias" else key
        assert node is not None
        if node.kind != "scalar":
            raise self._err(
                "has a map or list as a key (unsupported map key)", "scalar keys", key.line
            )
        go = node.go
        if isinstance(go, bool):
            return ("b", go), "true" if go else "false"
        if isinstance(go, GoFloat):
            if math.isnan(go):
                self.nan_keys += 1  # NaN is never equal to itself, in a Go map either
                return ("nan", self.nan_keys), ".nan"
            return ("f", float(go)), _go_float32_key(go)
        if isinstance(go, int):
            if go >= INT64:
                return self._bad_key(
                    f"has the key {node.text}, which kubectl cannot convert "
                    "(unsupported map key: uint64)",
                    "keys below 2**63",
                    key.line,
                )
            return ("i", go), str(go)
        if go is None:
            return self._bad_key(
                "has a null key (unsupported map key)", 'a non-null key (quote it: "~")', key.line
            )
        assert isinstance(go, str)
        return ("s", go), go

    def _bad_key(self, problem: str, accepted: str, line: int) -> tuple[GoKey, str]:
        """A key sigs.k8s.io/yaml cannot convert: an error only if it survives decoding.

        The conversion to JSON runs after go-yaml has decoded the document, so such a key
        inside a value that a later duplicate key replaces is never seen (kubectl accepts
        ``a: {~: 1}`` followed by ``a: 2``). It is kept as a unique key carrying its error,
        and the finished document is searched for it."""
        self.bad_keys += 1
        error = self._err(problem, accepted, line)
        return ("bad", self.bad_keys), BadKey(error, self.bad_keys)

    def raise_surviving_bad_key(self, value: object) -> None:
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                for key, element in item.items():
                    if isinstance(key, BadKey):
                        raise key.error
                    stack.append(element)
            elif isinstance(item, list):
                stack.extend(item)


class BadKey(str):
    """A key kubectl cannot convert, held in place with its error (see ``KeyMaker._bad_key``)."""

    error: ManifestError

    def __new__(cls, error: ManifestError, serial: int) -> BadKey:
        made = super().__new__(cls, f"\x00<unconvertible key {serial}>")
        made.error = error
        return made


def _float32(number: float) -> float:
    try:
        return struct.unpack("<f", struct.pack("<f", number))[0]  # type: ignore[no-any-return]
    except OverflowError:
        return math.copysign(math.inf, number)


def _float32_digits(value: float) -> tuple[str, int]:
    """Shortest digits that read back as the float32 ``value`` (> 0), closest on a tie."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    below = struct.unpack("<f", struct.pack("<I", bits - 1))[0] if bits > 1 else 0.0
    above = struct.unpack("<f", struct.pack("<I", bits + 1))[0]
    with localcontext() as ctx:
        ctx.prec = 200
        exact = Decimal(value)
        low = (Decimal(below) + exact) / 2
        # Past the largest float32 the next step up has the same width as the one below.
        high = (
            (exact + Decimal(above)) / 2
            if math.isfinite(above)
            else exact + (exact - Decimal(below)) / 2
        )
        even = bits % 2 == 0
        for precision in range(1, 10):
            quantum = Decimal(1).scaleb(exact.adjusted() - precision + 1)
            down = (exact / quantum).to_integral_value(rounding="ROUND_FLOOR") * quantum
            candidates = [
                c for c in (down, down + quantum) if low < c < high or (even and c in (low, high))
            ]
            if candidates:
                best = min(candidates, key=lambda c: abs(c - exact))
                _, digit_tuple, exponent = best.normalize().as_tuple()
                digits = "".join(map(str, digit_tuple))
                assert isinstance(exponent, int)
                return digits, len(digits) + exponent
    raise AssertionError("a float32 always has a 9-digit form")  # pragma: no cover


def _go_float32_key(number: float) -> str:
    """strconv.FormatFloat(key, 'g', -1, 32) as sigs.k8s.io/yaml writes float keys."""
    value = _float32(number)
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    digits, point = _float32_digits(abs(value))
    exp = point - 1
    if exp < -4 or exp >= 6:  # shortest %g decides with precision 6
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    return sign + fixed(digits, point)
