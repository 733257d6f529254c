"""The error a rejected quantity raises, and how its message is worded.

Follows the failures of ``ParseQuantity`` in k8s.io/apimachinery ``pkg/api/resource/quantity.go``
(``ErrFormatWrong``, ``ErrSuffix``, ``ErrNumeric``), in a wording of raygang's own that names
the rejected text and what a quantity looks like.
"""

from __future__ import annotations

import json
from typing import Final, NoReturn

__all__ = ["QuantityError", "fail", "quote"]

_EXPECTED: Final = (
    "expected a number with an optional suffix (n u m k M G T P E, Ki Mi Gi Ti Pi Ei) "
    "or exponent (e3), e.g. 500m, 1.5, 2Gi, 1e3"
)


class QuantityError(ValueError):
    """A text that Kubernetes would not accept as a quantity.

    Attributes:
        text: The rejected input, as given.
    """

    def __init__(self, message: str, text: object = None) -> None:
        super().__init__(message)
        self.text = text


def quote(text: object) -> str:
    if isinstance(text, str):
        return json.dumps(text, ensure_ascii=False)
    return repr(text)


def fail(text: object, reason: str = "") -> NoReturn:
    detail = f"{reason}; " if reason else ""
    raise QuantityError(f"invalid quantity {quote(text)}: {detail}{_EXPECTED}", text)
