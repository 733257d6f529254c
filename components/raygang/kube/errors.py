"""Problems found in user input, collected and reported together.

Every message names where the input came from (a file, or a stack config key), the field
path inside the document, what was wrong and what would be accepted, so a platform engineer
can fix a manifest without reading a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "MapKey",
    "Problem",
    "SpecError",
    "describe_document",
    "describe_hidden",
    "describe_value",
    "field_path",
    "internal_error",
]

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_MAX_VALUE_CHARS = 80


class MapKey(str):
    """A key of a user map (a resource name, a label): always rendered as ``['key']``.

    ``requests.cpu`` would read as if ``cpu`` were a field of the API; ``requests['cpu']``
    says it is an entry of a map, the form Kubernetes' own messages use for quantities.
    """

    __slots__ = ()


def field_path(parts: Iterable[str | int]) -> str:
    """Render a location as ``spec.workerGroupSpecs[1].resources.requests['cpu']``.

    Args:
        parts: keys (str; :class:`MapKey` for entries of a user map) and list indices
            (int), outermost first.

    Returns:
        The dotted path; ``<document>`` for an empty location.
    """
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, MapKey) or not _PLAIN_KEY.fullmatch(part):
            # Keys such as ``nvidia.com/gpu`` would read as nested fields after a dot.
            out += f"[{str(part)!r}]"
        else:
            out += f".{part}" if out else part
    return out or "<document>"


def describe_value(value: object) -> str:
    """A short, type-revealing rendering of a value for messages.

    YAML turns unquoted ``2.52`` into a float and ``yes`` into a bool; saying "the number
    2.52" instead of just "2.52" tells the reader why a string field refused it.

    Args:
        value: any value loaded from YAML or JSON.

    Returns:
        E.g. ``the string 'two'``, ``the number 2.52``, ``null``, ``a list of 3 items``.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int | float):
        text = repr(value)
        if len(text) > 30:
            text = f"{text[:12]}...({len(text)} digits)"
        return f"the number {text}"
    if isinstance(value, str):
        text = repr(value)
        if len(text) > _MAX_VALUE_CHARS:
            text = text[: _MAX_VALUE_CHARS - 4] + "...'"
        return f"the string {text}"
    if isinstance(value, dict):
        return "an empty map {}" if not value else f"a map with keys {_keys(value)}"
    if isinstance(value, list | tuple):
        return "an empty list []" if not value else f"a list of {len(value)} items"
    text = repr(value)
    if len(text) > _MAX_VALUE_CHARS:
        text = text[: _MAX_VALUE_CHARS - 3] + "..."
    return f"{text} ({type(value).__name__})"


def describe_hidden(value: object) -> str:
    """What :func:`describe_value` says, without the value: for fields that may hold a
    secret (an env value, a runtime env, a Secret's data, a document that is plain text),
    whose value must not reach a terminal or a CI log.

    Returns:
        E.g. ``a number (value not shown)``, ``a string of 12 characters (value not shown)``.
    """
    if value is None or isinstance(value, list | tuple | dict):
        return describe_value(value) if not value else f"{_type_of(value)} (value not shown)"
    if isinstance(value, str):
        return f"a string of {len(value)} characters (value not shown)"
    return f"{_type_of(value)} (value not shown)"


def describe_document(value: object) -> str:
    """A document that is not an object, described: plain text (a ``.env`` file given by
    mistake, say) is not quoted, since it may hold secrets."""
    return describe_hidden(value) if isinstance(value, str) else describe_value(value)


def _type_of(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, dict):
        return "a map"
    if isinstance(value, list | tuple):
        return f"a list of {len(value)} items"
    return f"a {type(value).__name__}"


def _keys(value: dict[object, object]) -> str:
    names = [str(k) for k in list(value)[:4]]
    more = ", ..." if len(value) > 4 else ""
    text = ", ".join(names) + more
    return text if len(text) <= _MAX_VALUE_CHARS else text[: _MAX_VALUE_CHARS - 3] + "..."


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
    """Raised when input cannot be planned; carries every problem found, not only the first.

    Identical problems (the same document loaded twice, one rule reached by two checks)
    are reported once, in first-seen order.
    """

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(dict.fromkeys(problems))
        super().__init__("\n".join(str(p) for p in self.problems))

    @classmethod
    def one(cls, source: str, path: str, message: str, accepted: str = "") -> SpecError:
        """A SpecError holding a single problem."""
        return cls([Problem(source, path, message, accepted)])


def internal_error(exc: BaseException, inputs: str) -> str:
    """The message for an exception nobody expected: short, the input named, no traceback.

    The command line and the Pulumi program both end with it instead of a traceback, which
    would say nothing to the user and bury the one line that matters: which input.

    Args:
        exc: what was raised.
        inputs: the input being planned, e.g. ``jobs/train.yaml`` or ``stack dev config``.
    """
    what = str(exc).splitlines()[0][:300] if str(exc) else ""
    kind = type(exc).__name__
    return (
        f"raygang: internal error while planning {inputs}: {kind}"
        + (f": {what}" if what else "")
        + "\nraygang: this is a bug in raygang, not a problem it found in the input; "
        "please report it, with the input above (or the smallest part of it that still "
        "fails), to the raygang maintainers"
    )
