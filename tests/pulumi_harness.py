"""Run Pulumi code under the SDK's own mocks and record what it registers.

``MockResourceArgs`` carries no parent or dependencies, so a ``MockMonitor`` subclass
records the raw ``RegisterResourceRequest`` instead: type, name, parent, dependencies,
options and inputs, exactly as the engine would receive them.
"""

from __future__ import annotations

import json
import runpy
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pulumi
import pulumi.runtime
import yaml
from pulumi.runtime import rpc
from pulumi.runtime.mocks import MockMonitor
from raygang.testing import KubernetesMocks

PROJECT = "raygang"
ROOT = Path(__file__).resolve().parents[1]

QUEUE_T = "kubernetes:scheduling.volcano.sh/v1beta1:Queue"
PG_T = "kubernetes:scheduling.volcano.sh/v1beta1:PodGroup"
RC_T = "kubernetes:ray.io/v1:RayCluster"
CM_T = "kubernetes:core/v1:ConfigMap"
JOB_T = "kubernetes:batch/v1:Job"


@dataclass
class Registration:
    urn: str
    type: str
    name: str
    parent: str
    dependencies: list[str]
    inputs: dict[str, Any]
    delete_before_replace: bool
    replace_on_changes: list[str]
    ignore_changes: list[str]
    custom: bool


class RecordingMonitor(MockMonitor):  # type: ignore[misc]
    """A MockMonitor that keeps every registration request, in order."""

    def __init__(self, mocks: pulumi.runtime.Mocks) -> None:
        super().__init__(mocks)
        self.registrations: list[Registration] = []
        self.outputs: dict[str, dict[str, Any]] = {}

    def RegisterResource(self, request: Any) -> Any:
        response = super().RegisterResource(request)
        if request.type != "pulumi:pulumi:Stack":
            self.registrations.append(
                Registration(
                    urn=response.urn,
                    type=request.type,
                    name=request.name,
                    parent=request.parent,
                    dependencies=list(request.dependencies),
                    inputs=rpc.deserialize_properties(request.object),
                    delete_before_replace=request.deleteBeforeReplace,
                    replace_on_changes=list(request.replaceOnChanges),
                    ignore_changes=list(request.ignoreChanges),
                    custom=request.custom,
                )
            )
        return response

    def RegisterResourceOutputs(self, request: Any) -> Any:
        self.outputs[request.urn] = rpc.deserialize_properties(request.outputs)
        return super().RegisterResourceOutputs(request)

    def by_name(self, name: str) -> Registration:
        found = [r for r in self.registrations if r.name == name]
        assert len(found) == 1, f"{name}: {len(found)} registrations"
        return found[0]

    def of_type(self, typ: str) -> list[Registration]:
        return [r for r in self.registrations if r.type == typ]

    def names(self) -> list[str]:
        return [r.name for r in self.registrations]


def stack_config(stack: str) -> dict[str, str]:
    """A stack file's config as the Pulumi CLI hands it to a program: JSON text per key."""
    data = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())
    return {
        key: value if isinstance(value, str) else json.dumps(value)
        for key, value in (data.get("config") or {}).items()
    }


def install(
    config: dict[str, str], preview: bool, stack: str = "dev", secret_keys: list[str] | None = None
) -> RecordingMonitor:
    """Install fresh mocks and config for one test (set_mocks is process-global).

    ``secret_keys`` are the config keys Pulumi would mark secret (``config set --secret``);
    none by default, so no test inherits another's.
    """
    mocks = KubernetesMocks()
    monitor = RecordingMonitor(mocks)
    pulumi.runtime.set_all_config(config, list(secret_keys or ()))
    pulumi.runtime.set_mocks(mocks, project=PROJECT, stack=stack, preview=preview, monitor=monitor)
    return monitor


def stacks() -> Iterator[str]:
    for path in sorted((ROOT / "stacks").glob("Pulumi.*.yaml")):
        yield path.name.split(".")[1]


def run_program(monitor: RecordingMonitor) -> dict[str, Any]:
    """Run the project's __main__.py as the Pulumi language host would."""

    @pulumi.runtime.test
    def program() -> Any:
        sys.path.insert(0, str(ROOT))
        try:
            runpy.run_path(str(ROOT / "__main__.py"), run_name="__main__")
        finally:
            sys.path.remove(str(ROOT))
        return None

    program()
    return {r.name: r for r in monitor.registrations}
