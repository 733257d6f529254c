"""Problems found in user input, collected and reported together.

Every message names where the input came from (a file, or a stack config key), the field
path inside the document, what was wrong and what would be accepted, so a platform engineer
can fix a manifest without reading a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["Problem", "SpecError", "field_path"]

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def field_path(parts: Iterable[str | int]) -> str:
    """Render a location as ``spec.workerGroupSpecs[1].minReplicas``.

    Args:
        parts: keys (str) and list indices (int), outermost first.

    Returns:
        The dotted path; ``<document>`` for an empty location.
    """
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not _PLAIN_KEY.fullmatch(part):
            # Keys such as ``nvidia.com/gpu`` would read as nested fields after a dot.
            out += f"[{part!r}]"
        else:
            out += f".{part}" if out else part
    return out or "<document>"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input.

    Attributes:
        source: the file path, or the stack config key the document came from.
        path: the field path inside the document (``spec.rayClusterSpec...``).
        message: what is wrong, quoting the offending value.
        accepted: what would be accepted instead; empty when the message says it.
    """

    source: str
    path: str
    message: str
    accepted: str = ""

    def __str__(self) -> str:
        text = f"{self.source}: {self.path}: {self.message}"
        if self.accepted:
            text += f" (accepted: {self.accepted})"
        return text


class SpecError(ValueError):
    """Raised when input cannot be planned; carries every problem found, not only the first."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    @classmethod
    def one(cls, source: str, path: str, message: str, accepted: str = "") -> SpecError:
        """A SpecError holding a single problem."""
        return cls([Problem(source, path, message, accepted)])
