"""Reading a working directory safely: the files to pack, each read once.

Nothing outside the directory is read: a symlink whose target leaves it is refused before
it is opened, a file is opened with ``O_NOFOLLOW`` (a link swapped in after the check is
refused by the kernel), and only regular files are read (a FIFO would block the planner, a
device would read without end). Each file is read once, and the bytes read are the bytes
packed, so a file that changes while the directory is packed gives a package (and a hash)
of exactly what was read.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from raygang.codepkg.rules import (
    ALLOW_ANNOTATION,
    EXCLUDE_FILE,
    MAX_FILE_COUNT,
    MAX_PATH_BYTES,
    MAX_READ_BYTES,
    REMOTE_ALTERNATIVE,
    Excludes,
    looks_secret,
    parse_excludes,
)

__all__ = ["PackRefusal", "read_file", "read_tree"]


@dataclass(frozen=True, slots=True)
class PackRefusal:
    """Why a path cannot be packed: ``path`` (relative), the reason and what is accepted."""

    path: str
    message: str
    accepted: str


class _Refused(Exception):
    """One refusal that ends the walk (a limit: going on would only read more)."""

    def __init__(self, refusal: PackRefusal) -> None:
        super().__init__(refusal.message)
        self.refusal = refusal


def _read_regular(path: Path, relpath: str, budget: int) -> bytes:
    """The bytes of one regular file, opened without following a link, at most ``budget``."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _Refused(
                PackRefusal(relpath, "is not a regular file", "regular files and directories")
            )
        chunks = []
        total = 0
        while chunk := os.read(fd, 1 << 20):
            total += len(chunk)
            if total > budget:
                raise _Refused(_too_much(relpath))
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_file(path: Path, name: str) -> bytes:
    """One file the manifest names itself (a wheel): a regular file, not a link, bounded.

    Raises:
        OSError: it cannot be opened (a symlink: ``O_NOFOLLOW`` refuses it).
        ValueError: it is not a regular file, or past :data:`MAX_READ_BYTES`.
    """
    try:
        return _read_regular(path, name, MAX_READ_BYTES)
    except _Refused as exc:
        raise ValueError(exc.refusal.message) from None


def _too_much(relpath: str) -> PackRefusal:
    return PackRefusal(
        relpath,
        f"takes the files read past {MAX_READ_BYTES:,} bytes, more than a code package may hold",
        REMOTE_ALTERNATIVE,
    )


def _excludes(root: Path) -> Excludes:
    path = root / EXCLUDE_FILE
    if not path.is_file() or path.is_symlink():
        return Excludes()
    text = _read_regular(path, EXCLUDE_FILE, MAX_READ_BYTES).decode("utf-8", "replace")
    return parse_excludes(text.splitlines())


def _within(root: Path, target: str) -> bool:
    return os.path.commonpath([str(root), target]) == str(root)


def read_tree(
    root: Path, allowed: frozenset[str]
) -> tuple[list[tuple[str, bytes]], list[PackRefusal]]:
    """Every file of ``root`` to pack, sorted by path, or why some cannot be packed.

    Args:
        root: the working directory (resolved, existing).
        allowed: secret-looking paths the manifest lists (:data:`ALLOW_ANNOTATION`).

    Returns:
        ``(files, refusals)``: ``(relative POSIX path, bytes)`` pairs in path order, and
        every refusal found (all of them, unless a limit ended the walk).

    Raises:
        OSError: a file or directory that cannot be read (the caller names it).
    """
    files: list[tuple[str, bytes]] = []
    refusals: list[PackRefusal] = []
    real_root = Path(os.path.realpath(root))
    try:
        excludes = _excludes(real_root)
        read = 0
        pending = [""]
        while pending:
            here = pending.pop()
            with os.scandir(real_root / here if here else real_root) as entries:
                names = sorted(e.name for e in entries)
            # Reversed onto the stack so subdirectories are walked in name order.
            subdirs = []
            for name in names:
                rel = f"{here}/{name}" if here else name
                full = real_root / rel
                info = os.lstat(full)
                mode = info.st_mode
                is_dir = stat.S_ISDIR(mode)
                if excludes.excluded(rel, is_dir):
                    continue
                if len(rel.encode("utf-8")) > MAX_PATH_BYTES:
                    refusals.append(
                        PackRefusal(
                            rel,
                            f"is a path of {len(rel.encode('utf-8'))} bytes, more than "
                            f"{MAX_PATH_BYTES}",
                            f"shorter paths, or excludes in {EXCLUDE_FILE}",
                        )
                    )
                    continue
                if is_dir:
                    subdirs.append(rel)
                    continue
                source = full
                if stat.S_ISLNK(mode):
                    target = os.path.realpath(full)
                    if not _within(real_root, target):
                        refusals.append(
                            PackRefusal(
                                rel,
                                f"is a symlink to {os.readlink(full)!r}, outside the "
                                "working directory",
                                "files inside the directory; copy the target in",
                            )
                        )
                        continue
                    if os.path.isdir(target):
                        refusals.append(
                            PackRefusal(
                                rel,
                                "is a symlink to a directory",
                                "the directory itself, or a symlink to a file",
                            )
                        )
                        continue
                    source = Path(target)
                    mode = os.lstat(source).st_mode
                if not stat.S_ISREG(mode):
                    refusals.append(
                        PackRefusal(
                            rel,
                            "is a device, FIFO or socket, which is never packed",
                            f"regular files; exclude it in {EXCLUDE_FILE}",
                        )
                    )
                    continue
                if looks_secret(rel) and rel not in allowed:
                    refusals.append(
                        PackRefusal(
                            rel,
                            "looks like a secret (its name matches a credentials pattern)",
                            f"exclude it in {EXCLUDE_FILE}, keep it in a Kubernetes Secret, "
                            f"or list it in the {ALLOW_ANNOTATION} annotation",
                        )
                    )
                    continue
                if len(files) >= MAX_FILE_COUNT:
                    raise _Refused(
                        PackRefusal(
                            rel,
                            f"is past the {MAX_FILE_COUNT} files a code package may hold",
                            REMOTE_ALTERNATIVE,
                        )
                    )
                data = _read_regular(source, rel, MAX_READ_BYTES - read)
                read += len(data)
                files.append((rel, data))
            pending.extend(reversed(subdirs))
    except _Refused as exc:
        refusals.append(exc.refusal)
    files.sort(key=lambda item: item[0])
    return files, refusals
