"""A job's code package as Kubernetes objects: immutable ConfigMaps of its zip's pieces.

Issue 28: a RayJob naming a local directory (``raygang.dev/working-dir``) ships it packed
(:mod:`raygang.codepkg`) in ConfigMaps ``ray-<job>-code-<hash12>-<i>``, one piece each in
``binaryData`` (under the 1 MiB a ConfigMap holds), marked ``immutable``: a package never
changes, a new version is new ConfigMaps beside the old ones. Only the submitter mounts them
(:mod:`raygang.kuberay.submitter.codemount`). The ``raygang.dev/resubmit`` counter runs the
same package (and spec) again under a new submission ID.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, Final

from raygang.codepkg import CodePackage, split_pieces
from raygang.kube.errors import SpecError
from raygang.kuberay.manifests import CODE_PACKAGE_ANNOTATION
from raygang.kuberay.submitter import CodeMount, piece_key

__all__ = [
    "CODE_PACKAGE_ANNOTATION",
    "RESUBMIT_ANNOTATION",
    "code_config_maps",
    "code_mount",
    "config_map_name",
    "resubmit_count",
]

#: On the RayJob: a counter; raising it submits the same package and spec again.
RESUBMIT_ANNOTATION: Final = "raygang.dev/resubmit"

_MAX_RESUBMIT: Final = 1_000_000


def config_map_name(job_name: str, package: CodePackage, index: int) -> str:
    """``ray-<job>-code-<first 12 hex of the hash>-<i>``: a new version, new names."""
    return f"ray-{job_name}-code-{package.short_hash}-{index}"


def code_mount(job_name: str, package: CodePackage) -> CodeMount:
    """What the submitter mounts: the hash and the pieces' ConfigMaps, in order."""
    count = len(split_pieces(package.data))
    return CodeMount(
        package.sha256,
        tuple(config_map_name(job_name, package, i) for i in range(count)),
        working_dir=package.has_working_dir,
        py_modules=package.py_modules,
    )


def code_config_maps(job_name: str, namespace: str, package: CodePackage) -> list[dict[str, Any]]:
    """The package's ConfigMaps, piece ``i`` under key ``part-<iii>`` of the ``i``-th."""
    pieces = split_pieces(package.data)
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": config_map_name(job_name, package, i),
                "namespace": namespace,
                "labels": {
                    "app.kubernetes.io/managed-by": "raygang",
                    "ray.io/originated-from-cr-name": job_name,
                    "ray.io/originated-from-crd": "RayJob",
                },
                "annotations": {
                    CODE_PACKAGE_ANNOTATION: package.sha256,
                    "raygang.dev/code-piece": f"{i + 1}/{len(pieces)}",
                },
            },
            "immutable": True,
            "binaryData": {piece_key(i): base64.b64encode(piece).decode("ascii")},
        }
        for i, piece in enumerate(pieces)
    ]


def resubmit_count(annotations: Mapping[str, str], source: str) -> int:
    """The ``raygang.dev/resubmit`` counter: 0 when unset.

    Raises:
        SpecError: not a whole number from 0 to 1,000,000.
    """
    text = annotations.get(RESUBMIT_ANNOTATION)
    if text is None:
        return 0
    if not (text.isascii() and text.isdigit() and int(text) <= _MAX_RESUBMIT):
        raise SpecError.one(
            source,
            f"metadata.annotations[{RESUBMIT_ANNOTATION!r}]",
            f"{text[:40]!r} is not accepted",
            "a whole number from 0 to 1000000 (raise it by one to run the job again)",
        )
    return int(text)
