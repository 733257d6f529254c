"""The fault suite's table: one row per case, printed at the end of the run.

Each case appends its row (:func:`record`) once it has measured what happened; a case that
fails before that leaves a row saying where it stopped, so the table never claims more than
was seen.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from raygang_localcluster import LocalCluster, LocalPulumi

from tests.e2e.conftest import E2E_NODES, make_pulumi


@pytest.fixture(scope="package")
def cluster(
    tools: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalCluster]:
    """A control plane of the fault suite's own: its cases stop and restart components and
    add and delete nodes, which the other end-to-end tests must never see."""
    bin_dir, share_dir = tools
    own = LocalCluster(bin_dir, share_dir, tmp_path_factory.mktemp("fault-cluster"), E2E_NODES)
    own.start()
    try:
        yield own
    finally:
        own.stop()


@pytest.fixture(scope="module")
def project(
    tools: tuple[Path, Path],
    cluster: LocalCluster,
    tmp_path_factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
) -> LocalPulumi:
    """Each module's own copy of the Pulumi project (its cases' stacks live in it)."""
    folder = tmp_path_factory.mktemp(request.module.__name__.rpartition(".")[2])
    return make_pulumi(tools, cluster, folder, ())


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
