"""``raygang.render``: the JSON plan written as it is produced is the plan ``json.dumps``
would print, byte for byte."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from raygang.cli import build_plan
from raygang.render import plan_document, render_json, write_json

from tests.builders import GOOD

ROOT = Path(__file__).resolve().parents[1]


class _Chunks(io.TextIOBase):
    """Records every write, to show the text arrives in pieces, not as one string."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_write_json_is_json_dumps_of_the_plan_document(path: Path) -> None:
    plan = build_plan([path], None, None, ROOT)
    expected = json.dumps(plan_document(plan), indent=2) + "\n"
    out = _Chunks()
    write_json(plan, out)
    assert "".join(out.parts) == expected
    # Streamed: no piece is longer than one job's (queue's, companion's) text, two levels in.
    document = plan_document(plan)
    elements = [e for value in document.values() if isinstance(value, list) for e in value]
    one = max(len(json.dumps(e, indent=2).replace("\n", "\n    ")) for e in elements)
    assert max(len(part) for part in out.parts) == one < len(expected)
    assert render_json(plan) == expected
