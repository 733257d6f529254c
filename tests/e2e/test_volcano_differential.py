"""The preflight against the real Volcano v1.14.1 on a fixed, seeded sample of generated
scenarios (``benchmarks.volcano_differential``): nodes, queues, other gangs, then our gang.

Verdict and phase must agree on every scenario, the first reason on at least 95 %. The
sample's gangs have no submitter: that keeps the sample's fixed outcomes the ones it was
checked with; gangs with a submitter (K8sJobMode) are in the 200-scenario runs (README,
"Preflight limits found against the real Volcano")."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from raygang_localcluster import LocalCluster

from benchmarks.volcano_differential import generate, report, run_scenarios, summary

pytestmark = pytest.mark.e2e

SEED = 7
SAMPLE = 20


@pytest.fixture(scope="module")
def bare_cluster(
    tools: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalCluster]:
    """A cluster of its own, with no node: overcommit counts every node of the cluster."""
    bin_dir, share_dir = tools
    c = LocalCluster(bin_dir, share_dir, tmp_path_factory.mktemp("differential"), nodes=[],
                     kuberay=False)  # fmt: skip
    c.start()
    try:
        yield c
    finally:
        c.stop()


def test_preflight_agrees_with_volcano(bare_cluster: LocalCluster, tmp_path: Path) -> None:
    scenarios = [dataclasses.replace(generate(SEED, i), submitter=False) for i in range(SAMPLE)]
    outcomes = run_scenarios(bare_cluster, scenarios, tmp_path)
    report(outcomes)
    s = summary(outcomes)
    assert s["errors"] == 0, [o.error for o in outcomes if o.error]
    assert s["verdict"] == 1.0 and s["phase"] == 1.0, s
    assert s["first_reason"] >= 0.95, s
