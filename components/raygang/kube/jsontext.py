"""``json.dumps(value, indent=2)``, for the one caller not yet switched to it.

The hand-written indented JSON writer that lived here is gone (issue 16 item 3):
``json.dumps`` writes the same bytes. ``raygang.kuberay.manifests`` still imports this name;
once it calls ``json.dumps`` itself, this module goes too.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["dumps_indented"]


def dumps_indented(value: Any, *, sort_keys: bool = False, ensure_ascii: bool = True) -> str:
    """``json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=ensure_ascii)``."""
    return json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
