"""The code package in the submitter pod: its volumes, and the step that unpacks it.

Beyond KubeRay (issue 28): a RayJob whose code is a local directory
(``raygang.dev/working-dir``) ships it as ConfigMaps of zip pieces. Only the submitter
mounts them, as one projected volume (the pieces are the files ``part-000``, ``part-001``,
... in order); before ``ray job submit`` the script joins them, checks the SHA-256 the plan
named (a piece from another version would be caught, not run), unzips them into an
``emptyDir`` and hands that directory to ``ray job submit --working-dir``, which zips it
again and uploads it into the head's store (``gcs://_ray_pkg_<hash>.zip``,
``ray/dashboard/modules/job/cli.py`` -> ``parse_runtime_env_args``). Heads and workers
are untouched: Ray ships the code to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "CODE_DIR",
    "CODE_PIECES_DIR",
    "WORKING_DIR",
    "CodeMount",
    "code_volumes",
    "piece_key",
    "unpack_command",
]

#: Where the ConfigMaps' pieces are projected (read-only).
CODE_PIECES_DIR: Final = "/var/run/raygang/code-package"

#: The emptyDir the package is unpacked into.
CODE_DIR: Final = "/var/run/raygang/code"

#: The working directory's files, unpacked: ``--working-dir``.
WORKING_DIR: Final = f"{CODE_DIR}/working_dir"

#: Where the package keeps local ``py_modules`` (``raygang.codepkg.PY_MODULES_DIR``); they
#: are unpacked under :data:`CODE_DIR`, beside the working directory, not in it.
_PY_MODULES_DIR: Final = ".raygang-py-modules"

_PIECES_VOLUME: Final = "raygang-code-package"
_DIR_VOLUME: Final = "raygang-code"


def piece_key(index: int) -> str:
    """The ConfigMap key (and projected file name) of piece ``index``: sorts in order."""
    return f"part-{index:03d}"


@dataclass(frozen=True, slots=True)
class CodeMount:
    """What the submitter needs of a code package.

    Attributes:
        sha256: the package's hash, checked before it is unpacked.
        config_maps: the pieces' ConfigMap names, in order (piece ``i`` is key
            :func:`piece_key` ``(i)`` of ``config_maps[i]``).
        working_dir: the package carries a working directory (``--working-dir``).
        py_modules: the local ``py_modules``' paths inside the package; the runtime env's
            ``py_modules`` gets them, unpacked under :data:`CODE_DIR`.
    """

    sha256: str
    config_maps: tuple[str, ...]
    working_dir: bool = True
    py_modules: tuple[str, ...] = ()

    def module_paths(self) -> list[str]:
        """The unpacked ``py_modules`` paths, for the runtime env."""
        return [f"{CODE_DIR}/{path}" for path in self.py_modules]


# One double-quoted word for bash: no '$', backtick, '"' or '\' inside, so bash passes it
# unchanged. The paths and the hash are constants and hex digits. The working directory's
# files go to {target}, the py_modules (their reserved top directory) beside it.
_UNPACK: Final = (
    '"import glob, hashlib, io, sys, zipfile; '
    "data = b''.join(open(p, 'rb').read() for p in sorted(glob.glob('{pieces}/part-*'))); "
    "digest = hashlib.sha256(data).hexdigest(); "
    "sys.exit('code package: sha256 ' + digest + ', expected {sha256}') "
    "if digest != '{sha256}' else [zipfile.ZipFile(io.BytesIO(data)).extract(name, "
    "'{root}' if name.startswith('{modules}/') else '{target}') "
    'for name in zipfile.ZipFile(io.BytesIO(data)).namelist()]"'
)


def unpack_command(sha256: str) -> list[str]:
    """The tokens that join, check and unpack the package, ending with ``;``."""
    if not (len(sha256) == 64 and all(c in "0123456789abcdef" for c in sha256)):
        raise ValueError(f"not a SHA-256 in hex: {sha256!r}")
    code = _UNPACK.format(
        pieces=CODE_PIECES_DIR,
        sha256=sha256,
        root=CODE_DIR,
        modules=_PY_MODULES_DIR,
        target=WORKING_DIR,
    )
    return ["python", "-c", code, ";"]


def code_volumes(mount: CodeMount) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The pod's volumes and the submitter container's mounts for the package."""
    sources: Sequence[dict[str, Any]] = [
        {"configMap": {"name": name, "items": [{"key": piece_key(i), "path": piece_key(i)}]}}
        for i, name in enumerate(mount.config_maps)
    ]
    volumes: list[dict[str, Any]] = [
        {"name": _PIECES_VOLUME, "projected": {"sources": list(sources)}},
        {"name": _DIR_VOLUME, "emptyDir": {}},
    ]
    mounts: list[dict[str, Any]] = [
        {"name": _PIECES_VOLUME, "mountPath": CODE_PIECES_DIR, "readOnly": True},
        {"name": _DIR_VOLUME, "mountPath": CODE_DIR},
    ]
    return volumes, mounts
