"""The real Pulumi CLI against the local cluster: a file backend, a passphrase, its own home.

No cloud account and no network: state lives in a folder, secrets are encrypted with a
passphrase, plugins are never downloaded (the kubernetes provider we built is installed from
its folder under the version our Python SDK asks for, so the engine uses it without warnings).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from raygang_localcluster._errors import ClusterError

PULUMI_TIMEOUT_S = 900.0
PASSPHRASE = "raygang-local"  # protects only this throwaway state


class PulumiError(RuntimeError):
    def __init__(self, args: Iterable[str], done: subprocess.CompletedProcess[str]) -> None:
        self.stdout = done.stdout
        self.stderr = done.stderr
        self.returncode = done.returncode
        super().__init__(
            f"pulumi {' '.join(args)} exited {done.returncode}\n"
            f"--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
        )


@dataclass
class LocalPulumi:
    """``pulumi`` run in ``project`` with ``env`` (backend, home, PATH, KUBECONFIG)."""

    project: Path
    env: dict[str, str]

    def run(
        self,
        *args: str,
        check: bool = True,
        timeout: float = PULUMI_TIMEOUT_S,
        input: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        argv = [*args, "--non-interactive"]
        done = subprocess.run(
            ["pulumi", *argv],
            cwd=self.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            input=input,
        )
        if check and done.returncode != 0:
            raise PulumiError(argv, done)
        return done

    def config_set(self, key: str, value: object, stack: str) -> None:
        """Strings as they are; anything else as its JSON text."""
        if isinstance(value, str):
            self.run("config", "set", "--stack", stack, key, value)
        else:
            # The program reads every raygang:* value as JSON text when it parses as JSON.
            self.run("config", "set", "--stack", stack, key, json.dumps(value))

    def outputs(self, stack: str) -> Mapping[str, Any]:
        done = self.run("stack", "output", "--stack", stack, "--json")
        result: Mapping[str, Any] = json.loads(done.stdout)
        return result


def copy_project(source: Path, target: Path, venv: Path | None = None) -> Path:
    """A copy of a Pulumi project (``Pulumi.yaml``, ``__main__.py``, ``stacks/``) whose stack
    files ``stack init`` may write its encryption salt into without touching the original."""
    target.mkdir(parents=True, exist_ok=True)
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy2(source / name, target / name)
    if (source / "stacks").is_dir():
        shutil.copytree(source / "stacks", target / "stacks", dirs_exist_ok=True)
    venv = venv or source / ".venv"
    link = target / ".venv"
    if venv.exists() and not link.exists():
        # Pulumi.yaml names `.venv` as the program's virtualenv: the one raygang is in.
        link.symlink_to(venv.resolve())
    return target


def local_pulumi(
    bin_dir: Path,
    kubeconfig: Path,
    project: Path,
    workdir: Path,
    stacks: Iterable[str] = (),
) -> LocalPulumi:
    """Set up the CLI in ``project`` against ``kubeconfig``; init ``stacks``."""
    if not (bin_dir / "pulumi").exists():
        raise ClusterError("pulumi", None, f"no pulumi in {bin_dir}: run `make tools`")
    state = workdir / "pulumi-state"
    state.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PULUMI_HOME": str(workdir / "pulumi-home"),
        "PULUMI_BACKEND_URL": f"file://{state}",
        "PULUMI_CONFIG_PASSPHRASE": PASSPHRASE,
        "PULUMI_SKIP_UPDATE_CHECK": "true",
        "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",
        "PULUMI_IGNORE_AMBIENT_PLUGINS": "true",
        "KUBECONFIG": str(kubeconfig),
    }
    pulumi = LocalPulumi(project, env)
    # tools/build ships the provider as a plugin folder (binary + schema) and a script that
    # installs it under the version our SDK asks for; a provider on PATH instead would be an
    # "ambient" plugin the engine warns about.
    install = bin_dir / "pulumi-install-kubernetes-plugin"
    done = subprocess.run(
        [str(install)], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    if done.returncode != 0:
        raise PulumiError([str(install)], done)
    existing = {s["name"] for s in json.loads(pulumi.run("stack", "ls", "--json").stdout)}
    for stack in stacks:
        if stack not in existing:
            pulumi.run("stack", "init", stack)
    return pulumi
