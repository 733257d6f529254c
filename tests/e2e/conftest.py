"""The real-engine tier: the Pulumi CLI, our language host and the kubernetes provider, built
from the Go module proxy, against a real kube-apiserver with Volcano, KubeRay and kwok nodes.

Nothing here is mocked. The tools come from ``make tools``; when they are missing every test
of the tier fails with the reason (it is never skipped silently).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from raygang_localcluster import LocalCluster, LocalPulumi, NodeShape, copy_project, local_pulumi

REPO = Path(__file__).resolve().parents[2]
TOOLS = Path(os.environ.get("RAYGANG_TOOLS", REPO / ".tools"))
REQUIRED = (
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "kubectl",
    "kwok",
    "vc-scheduler",
    "vc-controller-manager",
    "ray-operator",
    "pulumi",
    "pulumi-language-python",
    "pulumi-install-kubernetes-plugin",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def tools() -> tuple[Path, Path]:
    bin_dir, share_dir = TOOLS / "bin", TOOLS / "share"
    missing = [n for n in REQUIRED if not (bin_dir / n).exists()]
    if missing:
        pytest.fail(
            f"the end-to-end tier needs {', '.join(missing)} in {bin_dir}: run `make tools` "
            "(it builds them with Go from the module proxy; Go >= 1.26 must be installed)",
            pytrace=False,
        )
    return bin_dir, share_dir


# Two nodes of the dev stack's declared shape (8 cpu, 32Gi), so the dev gang fits and one the
# queue cannot hold is refused by the queue, not by the nodes.
E2E_NODES = (NodeShape("kwok-node-0"), NodeShape("kwok-node-1"))


@pytest.fixture(scope="session")
def cluster(
    tools: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalCluster]:
    bin_dir, share_dir = tools
    c = LocalCluster(bin_dir, share_dir, tmp_path_factory.mktemp("cluster"), E2E_NODES)
    _CLUSTERS.append(c)
    c.start()
    try:
        yield c
    finally:
        c.stop()


_CLUSTERS: list[LocalCluster] = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.failed and _CLUSTERS:
        report.sections.append(
            ("local cluster", f"component logs: {_CLUSTERS[-1].logs}")
        )  # fmt: skip
    return report


def make_pulumi(
    tools: tuple[Path, Path],
    cluster: LocalCluster,
    workdir: Path,
    stacks: Sequence[str] = ("dev",),
) -> LocalPulumi:
    """The real CLI in a copy of our project (stack init writes into the stack files)."""
    bin_dir, _ = tools
    project = copy_project(REPO, workdir / "project")
    return local_pulumi(bin_dir, cluster.kubeconfig, project, workdir, stacks)
