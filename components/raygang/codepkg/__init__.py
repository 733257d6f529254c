"""Code packages: a job's local working directory, packed, hashed and split for ConfigMaps.

Ray's ``runtime_env.working_dir`` takes a local directory only where ``ray job submit``
runs (``ray/dashboard/modules/job/cli.py``, ``--working-dir``), or a remote zip URI. raygang
packs the directory a RayJob names (``raygang.dev/working-dir``) into one deterministic zip
(:mod:`.pack`), from files read safely (:mod:`.walk`, :mod:`.rules`), and splits it into
pieces small enough for ConfigMaps (:mod:`.split`); the submitter joins them again and
runs ``ray job submit --working-dir``, so Ray uploads the code into the cluster's own store.

Internal: not part of raygang's public surface; this package may change without notice.
"""

from raygang.codepkg.model import CodePackage
from raygang.codepkg.pack import pack_code, pack_directory
from raygang.codepkg.rules import (
    ALLOW_ANNOTATION,
    EXCLUDE_FILE,
    MAX_FILE_COUNT,
    MAX_PACKAGE_BYTES,
    MAX_PATH_BYTES,
    MAX_READ_BYTES,
    PY_MODULES_ANNOTATION,
    PY_MODULES_DIR,
    WORKING_DIR_ANNOTATION,
)
from raygang.codepkg.split import PIECE_BYTES, split_pieces

__all__ = [
    "ALLOW_ANNOTATION",
    "EXCLUDE_FILE",
    "MAX_FILE_COUNT",
    "MAX_PACKAGE_BYTES",
    "MAX_PATH_BYTES",
    "MAX_READ_BYTES",
    "PIECE_BYTES",
    "PY_MODULES_ANNOTATION",
    "PY_MODULES_DIR",
    "WORKING_DIR_ANNOTATION",
    "CodePackage",
    "pack_code",
    "pack_directory",
    "split_pieces",
]
