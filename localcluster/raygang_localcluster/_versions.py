"""What each component's binary says of its release (``--version``), for reports."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Versions:
    """What each component says of itself (``--version``), for reports and the README."""

    items: Mapping[str, str]


def read_versions(bin_dir: Path) -> Versions:
    """What each binary says of its release (KubeRay's operator has no version flag)."""
    items: dict[str, str] = {}
    for name, marker in (
        ("etcd", "etcd Version:"),
        ("kube-apiserver", "Kubernetes"),
        ("kube-controller-manager", "Kubernetes"),
        ("kwok", "kwok version"),
        ("vc-scheduler", "Version:"),
    ):
        exe = bin_dir / name
        if not exe.exists():
            continue
        done = subprocess.run(
            [str(exe), "--version"], capture_output=True, text=True, timeout=30, check=False
        )
        lines = (done.stdout + done.stderr).splitlines()
        items[name] = next((ln.strip() for ln in lines if ln.startswith(marker)), "")
    return Versions(items)
