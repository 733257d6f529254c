"""The fault suite's table: one row per case, printed at the end of the run.

Each case appends its row (:func:`record`) once it has measured what happened; a case that
fails before that leaves a row saying where it stopped, so the table never claims more than
was seen.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest


@dataclass
class Row:
    fault: str
    happened: str
    ups: str
    lost: str


ROWS: list[Row] = []


def record(fault: str, happened: str, ups: int | str, lost: str) -> None:
    ROWS.append(Row(fault, happened, str(ups), lost))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not ROWS:
        return
    terminalreporter.section("fault suite")
    for row in ROWS:
        terminalreporter.write_line(f"* {row.fault}")
        terminalreporter.write_line(f"    what happened: {row.happened}")
        terminalreporter.write_line(
            f"    `up`s to converge: {row.ups}; lost or done twice: {row.lost}"
        )
