"""The YAML events a document is built from.

They come from libyaml's C parser (the scanner and parser go-yaml v2 was ported from:
``scannerc.go``, ``parserc.go``), or from PyYAML's pure parser where libyaml is missing.
``PARSER`` is looked up for each document, so tests can swap in the pure parser.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import yaml

__all__ = [
    "HAVE_LIBYAML",
    "PARSER",
    "PyParser",
]


try:  # libyaml's C parser: the same scanner go-yaml v2 was ported from, and fast.
    from yaml._yaml import CParser as _CParser

    HAVE_LIBYAML: Final = True
except ImportError:  # pragma: no cover - only without libyaml
    HAVE_LIBYAML = False  # type: ignore[misc]


class PyParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's pure parser, where libyaml is missing: the same events, slower."""

    def __init__(self, stream: bytes) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)

    def dispose(self) -> None:
        """Nothing to free (CParser's counterpart)."""


# Which parser reads documents; tests set it to PyParser to check the fallback.
PARSER: Callable[[bytes], yaml.parser.Parser | PyParser] = (
    _CParser if HAVE_LIBYAML else PyParser  # type: ignore[assignment]
)
