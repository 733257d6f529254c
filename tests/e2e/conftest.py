"""The real-engine tier: the Pulumi CLI, our language host and the kubernetes provider, built
from the Go module proxy, against a real kube-apiserver with Volcano, KubeRay and kwok nodes.

Nothing here is mocked. The tools come from ``make tools``; when they are missing every test
of the tier fails with the reason (it is never skipped silently).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from raygang.localcluster import LocalCluster, NodeShape

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
    "pulumi-resource-kubernetes",
)
# What our Python SDK asks the engine for; the provider we built is installed under it.
PROVIDER_VERSION = "4.34.2"
PULUMI_TIMEOUT_S = 600.0


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "e2e: real Pulumi engine against a real local control plane (tests/e2e)"
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


@dataclass
class Pulumi:
    """The real CLI in a copy of our project, with a local backend and its own home."""

    project: Path
    env: dict[str, str]

    def run(
        self,
        *args: str,
        check: bool = True,
        timeout: float = PULUMI_TIMEOUT_S,
        input: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            ["pulumi", *args, "--non-interactive"],
            cwd=self.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            input=input,
        )
        if check and done.returncode != 0:
            raise AssertionError(
                f"pulumi {' '.join(args)} exited {done.returncode}\n"
                f"--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
            )
        return done

    def config_set(self, key: str, value: object, stack: str) -> None:
        """Structured values go in as JSON (``--json``), as a user's YAML would hold them."""
        if isinstance(value, str):
            self.run("config", "set", "--stack", stack, key, value)
        else:
            self.run("config", "set", "--stack", stack, "--json", key, json.dumps(value))

    def outputs(self, stack: str) -> Mapping[str, Any]:
        done = self.run("stack", "output", "--stack", stack, "--json")
        result: Mapping[str, Any] = json.loads(done.stdout)
        return result


def make_pulumi(
    tools: tuple[Path, Path],
    cluster: LocalCluster,
    workdir: Path,
    stacks: Sequence[str] = ("dev",),
) -> Pulumi:
    bin_dir, _ = tools
    project = workdir / "project"
    project.mkdir()
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy2(REPO / name, project / name)
    shutil.copytree(REPO / "stacks", project / "stacks")
    # Pulumi.yaml names `.venv` as the program's virtualenv: ours, with raygang installed.
    (project / ".venv").symlink_to(REPO / ".venv")
    home = workdir / "pulumi-home"
    state = workdir / "state"
    state.mkdir()
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PULUMI_HOME": str(home),
        "PULUMI_BACKEND_URL": f"file://{state}",
        "PULUMI_CONFIG_PASSPHRASE": "raygang-e2e",
        "PULUMI_SKIP_UPDATE_CHECK": "true",
        "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",
        "PULUMI_IGNORE_AMBIENT_PLUGINS": "true",
        "PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK": "true",
        "KUBECONFIG": str(cluster.kubeconfig),
    }
    pulumi = Pulumi(project, env)
    pulumi.run(
        "plugin", "install", "resource", "kubernetes", PROVIDER_VERSION,
        "--file", str(bin_dir / "pulumi-resource-kubernetes"),
    )  # fmt: skip
    for stack in stacks:
        pulumi.run("stack", "init", stack)
    return pulumi
