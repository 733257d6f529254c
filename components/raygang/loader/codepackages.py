"""Packing the code packages the loaded RayJobs name (issue 28).

A RayJob's ``raygang.dev/working-dir`` (and its local ``py_modules``,
``raygang.dev/py-modules``) is relative to the directory of the manifest file it is in, so a
stack's files carry their code beside them wherever the project is checked out; a job given
inline in stack config (``raygang:jobs``) has no file, and its paths are relative to the
project directory (where ``Pulumi.yaml`` is). Packing is reading files, so it happens here,
with the rest of the input, and planning gets the packages as data.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from raygang.codepkg import (
    ALLOW_ANNOTATION,
    PY_MODULES_ANNOTATION,
    WORKING_DIR_ANNOTATION,
    CodePackage,
    pack_code,
)
from raygang.kube.errors import Problem, SpecError
from raygang.loader.documents import file_of
from raygang.rayjob.spec import RayJobInput

__all__ = ["pack_jobs"]

_INLINE = "stack config "


def _manifest_dir(source: str, base: Path | None) -> Path:
    """Where a relative working directory of the job from ``source`` starts."""
    root = base if base is not None else Path()
    if source.startswith(_INLINE):
        return root
    path = Path(file_of(source))
    return (path if path.is_absolute() else root / path).parent


def pack_jobs(
    jobs: Sequence[RayJobInput], base: Path | None
) -> tuple[dict[str, CodePackage], list[Problem]]:
    """The code package of every job naming one, by ``namespace/name``, and the problems."""
    packages: dict[str, CodePackage] = {}
    problems: list[Problem] = []
    for item in jobs:
        annotations = item.job.metadata.annotations
        directory = annotations.get(WORKING_DIR_ANNOTATION)
        modules = [m.strip() for m in annotations.get(PY_MODULES_ANNOTATION, "").split(",")]
        modules = [m for m in modules if m]
        if directory is None and not modules:
            continue
        allowed = frozenset(
            p.strip() for p in annotations.get(ALLOW_ANNOTATION, "").split(",") if p.strip()
        )
        try:
            packages[f"{item.namespace}/{item.name}"] = pack_code(
                directory, modules, _manifest_dir(item.source, base), item.source, allowed
            )
        except SpecError as exc:
            problems.extend(exc.problems)
    return packages, problems
