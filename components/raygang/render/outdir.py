"""``raygang plan --out``: one file per manifest in a directory, and the index that lets
``--replace`` remove exactly what an earlier run wrote.

The directory may hold anything (another user's links, a FIFO, an edited index), so every
entry is reached through a descriptor of DIR itself (``dir_fd``) and never through a link:
a file is created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` (an entry already there, a link
included, fails instead of being followed), only regular files are removed, and the index
is opened without blocking (a FIFO would wait for a writer) and read only when it is a
regular file of at most :data:`MAX_INDEX_BYTES`.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

from raygang.plan import StackPlan
from raygang.render.manifests import manifest_files

INDEX = "raygang.index"

# An index raygang writes names at most a few thousand files of at most ~400 bytes each
# (1000 jobs of 4 objects and their companions: ~1.6 MB); anything far larger was not
# written by raygang and is not read whole.
MAX_INDEX_BYTES: Final = 4 * 1024 * 1024

_INDEX_HEADER = (
    "# Written by `raygang plan --out`. `--replace` removes exactly the files listed here,\n"
    "# and nothing else in this directory.\n"
)

_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)


class OutDirError(Exception):
    """``--out`` cannot be written as asked; the message says why and what would do."""


def _plain(name: str) -> bool:
    """A name that stays one entry of DIR: no separator, not ``.``/``..``, printable."""
    return bool(name) and "/" not in name and name not in (".", "..") and name.isprintable()


def _index(out: Path, fd: int) -> set[str]:
    """The names the index lists; empty when it is missing, not a regular file, or not text.

    Raises:
        OutDirError: the index is larger than :data:`MAX_INDEX_BYTES`.
    """
    try:
        index = os.open(INDEX, os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW, dir_fd=fd)
    except OSError:
        return set()
    try:
        info = os.fstat(index)
        if not stat.S_ISREG(info.st_mode):
            return set()
        if info.st_size > MAX_INDEX_BYTES:
            raise OutDirError(
                f"{out / INDEX}: is {info.st_size} bytes, more than the {MAX_INDEX_BYTES} an "
                "index raygang writes can hold (accepted: the index an earlier raygang plan "
                "wrote; remove this one, or use another directory)"
            )
        with os.fdopen(index, "rb", closefd=False) as stream:
            data = stream.read(MAX_INDEX_BYTES + 1)
    finally:
        os.close(index)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return set()
    names = {line.strip() for line in text.splitlines()}
    # Only plain file names: an edited index cannot make --replace remove anything else.
    return {n for n in names if _plain(n) and not n.startswith("#")}


def _regular(name: str, fd: int) -> bool:
    try:
        return stat.S_ISREG(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _create(name: str, text: str, fd: int) -> None:
    """Write a new file ``name`` in DIR; an entry already there (a link too) is an error."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW
    handle = os.open(name, flags, 0o644, dir_fd=fd)
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(text)


def write_manifests(
    plan: StackPlan, out: Path, fmt: str = "yaml", *, replace: bool = False
) -> tuple[list[Path], list[str]]:
    """Write one file per manifest into ``out``, numbered in creation order.

    ``out`` is created when missing. An existing directory must be empty, unless
    ``replace``: then the files an earlier run listed in ``raygang.index`` are removed
    first, and nothing else; other files stay (and are named in the notes).

    Returns:
        The files written (the index last), and notes about files left alone.

    Raises:
        OutDirError: ``out`` is a file, is not empty (without ``replace``), holds a file of
            someone else's where a manifest would go, or cannot be written.
    """
    if out.exists() and not out.is_dir():
        raise OutDirError(f"{out}: is a file, not a directory (accepted: a directory for --out)")
    files = manifest_files(plan, fmt)
    odd = [name for name, _ in files if not _plain(name)]
    if odd:  # the loader refuses such names; never let one reach the file system
        raise OutDirError(
            f"{out}: {odd[0]!r} is not a plain file name (accepted: objects named as "
            "Kubernetes accepts them)"
        )
    notes: list[str] = []
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd = os.open(out, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        raise _unwritable(exc, out) from None
    try:
        return _write(out, fd, files, replace, notes), notes
    except OSError as exc:
        raise _unwritable(exc, out) from None
    finally:
        os.close(fd)


def _unwritable(exc: OSError, out: Path) -> OutDirError:
    # Entries of DIR are opened by their name relative to it; DIR itself by its path.
    name = exc.filename
    if not isinstance(name, str) or name == str(out):
        where = out
    else:
        where = out / name if _plain(name) else Path(name)
    return OutDirError(
        f"{where}: cannot be written: {exc.strerror or exc} (accepted: a writable directory)"
    )


def _write(
    out: Path, fd: int, files: list[tuple[str, str]], replace: bool, notes: list[str]
) -> list[Path]:
    """Check DIR's entries against the index, remove the earlier run's files, write these."""
    present = sorted(os.listdir(fd))
    ours = _index(out, fd) if present else set()
    if present and not replace:
        listed = ", ".join(present[:5]) + (
            f" and {len(present) - 5} more" if len(present) > 5 else ""
        )
        earlier = " (an earlier raygang plan)" if ours else ""
        raise OutDirError(
            f"{out}: is not empty{earlier}: {listed} (accepted: an empty or new directory, "
            "or --replace to remove the files raygang wrote there before)"
        )
    # Listed and a regular file: raygang wrote it. A link, a FIFO or a directory under a
    # listed name was put there by someone else, and is theirs.
    mine = {name for name in ours & set(present) if _regular(name, fd)}
    foreign = [n for n in present if n not in mine and n != INDEX]
    clash = sorted({name for name, _ in files} & set(foreign))
    if clash:
        raise OutDirError(
            f"{out}: {', '.join(clash)} would be overwritten, but raygang did not write it "
            "(accepted: another directory, or remove it)"
        )
    if INDEX in present and not _regular(INDEX, fd):
        raise OutDirError(
            f"{out / INDEX}: is not a regular file, so raygang did not write it (accepted: "
            "another directory, or remove it)"
        )
    if foreign:
        notes.append(
            f"{out}: kept {len(foreign)} entries raygang did not write: "
            + ", ".join(foreign[:5])
            + (" ..." if len(foreign) > 5 else "")
        )
    for name in sorted(mine):
        os.unlink(name, dir_fd=fd)
    if INDEX in present:
        os.unlink(INDEX, dir_fd=fd)
    written = []
    for name, text in files:
        _create(name, text, fd)
        written.append(out / name)
    _create(INDEX, _INDEX_HEADER + "".join(f"{n}\n" for n, _ in files), fd)
    written.append(out / INDEX)
    return written
