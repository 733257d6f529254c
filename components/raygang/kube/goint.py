"""Go's ``strconv.ParseInt(s, 10, 64)``, as Kubernetes' label selectors read ``Gt``/``Lt``.

``k8s.io/apimachinery/pkg/labels/selector.go`` (``Requirement.Matches``) parses both the
node's label value and the requirement's value this way: an optional sign, then ASCII
decimal digits, within int64. Python's ``int()`` accepts more (``5_000``, `` 5``, other
scripts' digits), which Kubernetes refuses.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["parse_int64"]

_DECIMAL: Final = re.compile(r"[+-]?[0-9]+")

_INT64: Final = 2**63

# int64's largest magnitude has 19 digits: longer runs (past leading zeros) are out of
# range without being handed to int(), whose digit limit is 4300.
_MAX_DIGITS: Final = 19


def parse_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``; None where Go returns an error."""
    if not _DECIMAL.fullmatch(text):
        return None
    negative = text[0] == "-"
    digits = text.lstrip("+-").lstrip("0")
    if len(digits) > _MAX_DIGITS:
        return None
    magnitude = int(digits or "0")
    if negative:
        return -magnitude if magnitude <= _INT64 else None
    return magnitude if magnitude < _INT64 else None
